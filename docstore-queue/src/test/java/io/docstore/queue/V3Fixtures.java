package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentScanner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Shared helpers for the segment format 3 tests (records compressed one by one with a zstd
 * dictionary): bodies, a model of what was appended, and a reader of the blocks as stored (flags,
 * dictionary id, each stored record's place), independent of the queue's own readers.
 */
final class V3Fixtures {

  private V3Fixtures() {}

  static final int PAGE = 4096;

  /** Options under which the dictionary engages after 50 bodies. */
  static QueueOptions.Builder options() {
    return QueueOptions.builder()
        .syncPolicy(SyncPolicy.NONE)
        .segmentSize(256 * 1024)
        .dictionaryBytes(4096)
        .dictionarySamples(50);
  }

  /** What was appended, and where the queue said it went. */
  record Expected(long sequence, long id, Op op, long acceptedAt, byte[] body, long address) {}

  private static final String[] WORDS = {
    "storage",
    "engine",
    "senior",
    "backend",
    "engineer",
    "remote",
    "Austin",
    "Berlin",
    "salary",
    "benefits",
    "kubernetes",
    "java",
    "rust",
    "team",
    "on-call",
    "queue",
    "index",
    "latency",
    "throughput",
    "customers",
    "we",
    "are",
    "hiring",
    "the",
    "and",
    "with",
    "for",
    "experience",
    "years"
  };
  private static final String[] COMPANIES = {
    "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne"
  };

  /** A JSON-like job document of about {@code length} bytes (at least 50): compressible text. */
  static byte[] json(Random rnd, int length) {
    StringBuilder b = new StringBuilder(length + 64);
    b.append("{\"id\":")
        .append(rnd.nextInt(10_000_000))
        .append(",\"title\":\"")
        .append(WORDS[rnd.nextInt(WORDS.length)])
        .append(' ')
        .append(WORDS[rnd.nextInt(WORDS.length)])
        .append("\",\"company\":\"")
        .append(COMPANIES[rnd.nextInt(COMPANIES.length)])
        .append("\",\"salary\":")
        .append(50_000 + rnd.nextInt(150_000))
        .append(",\"text\":\"");
    while (b.length() < length - 2) {
      b.append(WORDS[rnd.nextInt(WORDS.length)]).append(rnd.nextInt(6) == 0 ? ". " : " ");
    }
    b.setLength(Math.max(0, length - 2));
    b.append("\"}");
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** A JSON document of 50 B to 4 KB, mostly around 1 KB. */
  static byte[] json(Random rnd) {
    return json(rnd, 50 + rnd.nextInt(rnd.nextInt(5) == 0 ? 4047 : 1500));
  }

  static byte[] noise(Random rnd, int length) {
    byte[] b = new byte[length];
    rnd.nextBytes(b);
    return b;
  }

  /** Appends a random record (JSON, incompressible bytes, an empty PUT or a DELETE); returns it. */
  /**
   * Appends {@code n} JSON bodies of 100 to 1,899 bytes, IDs three times their sequence, and adds
   * what was appended to {@code model} (whose size is the last sequence).
   */
  static void appendJson(DocQueue q, Random rnd, int n, List<Expected> model) throws IOException {
    for (int i = 0; i < n; i++) {
      byte[] body = json(rnd, 100 + rnd.nextInt(1800));
      long seq = model.size() + 1;
      Appended a = q.writer().append(seq * 3, Op.PUT, seq, body);
      model.add(new Expected(seq, seq * 3, Op.PUT, seq, body, a.address()));
    }
  }

  static Expected appendRandom(DocQueue q, Random rnd, long sequence) throws IOException {
    int dice = rnd.nextInt(100);
    Op op = dice < 8 ? Op.DELETE : Op.PUT;
    byte[] body =
        op == Op.DELETE || dice < 14
            ? new byte[0]
            : dice < 24 ? noise(rnd, 50 + rnd.nextInt(2000)) : json(rnd);
    long id = rnd.nextInt(10) == 0 ? Long.MAX_VALUE - rnd.nextInt(3) : rnd.nextInt(100_000);
    long at = rnd.nextLong();
    Appended a = q.writer().append(id, op, at, body);
    assertThat(a.sequence()).isEqualTo(sequence);
    return new Expected(sequence, id, op, at, body, a.address());
  }

  static void check(QueueRecord r, Expected e, String context) {
    assertThat(r).as("%s: sequence %d", context, e.sequence()).isNotNull();
    String what = context + ": sequence " + e.sequence();
    assertThat(r.sequence()).as(what).isEqualTo(e.sequence());
    assertThat(r.address()).as(what).isEqualTo(e.address());
    assertThat(r.id()).as(what).isEqualTo(e.id());
    assertThat(r.op()).as(what).isEqualTo(e.op());
    assertThat(r.acceptedAtMillis()).as(what).isEqualTo(e.acceptedAt());
    assertThat(r.body()).as(what).isEqualTo(e.body());
  }

  /**
   * Every record of the model reads back by address, and a tailer from {@code from} returns the
   * model's suffix.
   */
  static void checkAll(DocQueue q, List<Expected> model, long from, String context)
      throws IOException {
    assertThat(q.lastSequence()).as(context).isEqualTo(model.size());
    for (Expected e : model) {
      check(q.reader().get(e.address()), e, context + " (get)");
    }
    try (QueueTailer t = q.tailer(from)) {
      for (long s = from; s <= model.size(); s++) {
        check(t.poll(), model.get((int) s - 1), context + " (tailer from " + from + ")");
      }
      assertThat(t.poll()).as(context + ": tailer past the end").isNull();
    }
  }

  /** Segments of 64 KiB: a few hundred records make several. */
  static QueueOptions small(boolean mapped) {
    return options().segmentSize(64 * 1024).mappedReads(mapped).build();
  }

  /**
   * A closed queue of {@code records} JSON bodies (some empty) under {@link #small}: segment 1 is
   * sealed early when the dictionary is trained, segments 2 onwards start with it. Verified
   * healthy.
   */
  static List<Expected> fillJson(Path dir, int records) throws IOException {
    List<Expected> model = new ArrayList<>();
    Random rnd = new Random(7);
    try (DocQueue q = DocQueue.open(dir, small(true))) {
      for (int i = 0; i < records; i++) {
        byte[] body = i % 17 == 5 ? new byte[0] : json(rnd, 200 + rnd.nextInt(1500));
        Appended a = q.writer().append(i, Op.PUT, i, body);
        model.add(new Expected(i + 1, i, Op.PUT, i, body, a.address()));
      }
    }
    assertThat(io.docstore.queue.tools.QueueVerifier.verify(dir)).isEmpty();
    return model;
  }

  /**
   * The {@code nth} sealed segment that starts with a dictionary; at least one more such sealed
   * segment follows.
   */
  static Path sealedWithDictionary(Path dir, int nth) throws IOException {
    List<Path> sealed = new ArrayList<>();
    for (Path p : segments(dir)) {
      if (SegmentFileName.parse(p).orElseThrow().sealed() && blocks(p).get(0).dictionary()) {
        sealed.add(p);
      }
    }
    assertThat(sealed.size()).as("sealed segments with a dictionary").isGreaterThan(nth + 1);
    return sealed.get(nth);
  }

  /** The queue's segment files, by number. */
  static List<Path> segments(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> SegmentFileName.parse(p).isPresent())
          .sorted((a, b) -> Long.compare(number(a), number(b)))
          .toList();
    }
  }

  static long number(Path segment) {
    return SegmentFileName.parse(segment).orElseThrow().segment();
  }

  static Path active(Path dir) throws IOException {
    List<Path> all = segments(dir);
    Path last = all.get(all.size() - 1);
    assertThat(SegmentFileName.parse(last).orElseThrow().sealed())
        .as("newest segment is active")
        .isFalse();
    return last;
  }

  /**
   * A block as stored: where it lies and its header fields, and for a block of zrecords its
   * dictionary id.
   */
  record Block(
      Path file, long offset, long end, int flags, int count, long firstSequence, int dictId) {
    boolean zrecords() {
      return flags == BlockFormat.FLAG_ZSTD_RECORDS;
    }

    /** A block of zrecords compressed with a dictionary (dictId != 0). */
    boolean zstd() {
      return zrecords() && dictId != 0;
    }

    boolean dictionary() {
      return flags == BlockFormat.FLAG_DICTIONARY;
    }

    boolean padding() {
      return flags == BlockFormat.FLAG_PADDING;
    }

    boolean lz4() {
      return flags == BlockFormat.FLAG_LZ4;
    }

    boolean holds(long sequence) {
      return sequence >= firstSequence && sequence < firstSequence + count;
    }
  }

  /** The blocks of a healthy segment, each verified in full by a scanner. */
  static List<Block> blocks(Path file) throws IOException {
    List<Block> out = new ArrayList<>();
    try (FileChannel ch = FileChannel.open(file)) {
      SegmentScanner s = new SegmentScanner(file, ch, ch.size(), new BlockReader(64 * 1024, true));
      DecodedBlock b = new DecodedBlock();
      while (s.next(b) == SegmentScanner.Kind.BLOCK) {
        ByteBuffer h = read(ch, b.offset(), BlockFormat.HEADER_LENGTH + 4);
        int flags = h.get(BlockFormat.FLAGS);
        int dictId =
            flags == BlockFormat.FLAG_ZSTD_RECORDS ? h.getInt(BlockFormat.HEADER_LENGTH) : 0;
        out.add(new Block(file, b.offset(), b.end(), flags, b.count(), b.firstSequence(), dictId));
        assertThat(b.zstd()).isEqualTo(flags == BlockFormat.FLAG_ZSTD_RECORDS);
        assertThat(b.dictionary()).isEqualTo(flags == BlockFormat.FLAG_DICTIONARY);
      }
    }
    return out;
  }

  static List<Block> allBlocks(Path dir) throws IOException {
    List<Block> out = new ArrayList<>();
    for (Path p : segments(dir)) {
      out.addAll(blocks(p));
    }
    return out;
  }

  /** The block holding {@code sequence}. */
  static Block blockOf(List<Block> blocks, long sequence) {
    return blocks.stream().filter(b -> b.holds(sequence)).findFirst().orElseThrow();
  }

  /** The payload of a dictionary block (the dictionary's bytes). */
  static byte[] dictionaryBytes(Block b) throws IOException {
    assertThat(b.dictionary()).as("dictionary block at %d of %s", b.offset(), b.file()).isTrue();
    try (FileChannel ch = FileChannel.open(b.file())) {
      ByteBuffer all =
          read(
              ch,
              b.offset() + BlockFormat.HEADER_LENGTH,
              (int) (b.end() - b.offset() - BlockFormat.HEADER_LENGTH));
      return all.array();
    }
  }

  /**
   * QueueRecord {@code i} of a block of zrecords as stored: where its stored body starts in the
   * file, the stored body's length and the body's length once decompressed.
   */
  record StoredRecord(long bodyAt, int storedBody, int bodyLength) {
    boolean compressed() {
      return storedBody < bodyLength;
    }
  }

  static StoredRecord stored(Block b, int i) throws IOException {
    assertThat(b.zrecords()).isTrue();
    try (FileChannel ch = FileChannel.open(b.file())) {
      long payload = b.offset() + BlockFormat.HEADER_LENGTH;
      ByteBuffer table =
          read(ch, payload + BlockFormat.ZSTD_TABLE + (long) i * BlockFormat.OFFSET_ENTRY, 8);
      int start = table.getInt(0);
      int end = table.getInt(4);
      ByteBuffer head = read(ch, payload + start, BlockFormat.ZRECORD_BODY);
      return new StoredRecord(
          payload + start + BlockFormat.ZRECORD_BODY,
          end - start - BlockFormat.ZRECORD_BODY,
          head.getInt(BlockFormat.ZRECORD_BODY_LENGTH));
    }
  }

  static ByteBuffer read(FileChannel ch, long offset, int length) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length);
    while (b.hasRemaining()) {
      if (ch.read(b, offset + b.position()) < 0) {
        throw new IOException("end of file at " + (offset + b.position()));
      }
    }
    return b.flip();
  }

  static void flipBit(Path file, long offset, int bit) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = read(ch, offset, 1);
      b.put(0, (byte) (b.get(0) ^ (1 << bit)));
      ch.write(b, offset);
    }
  }

  static void write(Path file, long offset, ByteBuffer bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      while (bytes.hasRemaining()) {
        ch.write(bytes, offset + bytes.position());
      }
    }
  }

  static void truncate(Path file, long size) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(size);
    }
  }

  /** The offset where a segment's first block starts. */
  static final long FIRST_BLOCK = SegmentFormat.HEADER_LENGTH;

  static String describe(List<Block> blocks) {
    return Arrays.toString(
        blocks.stream()
            .map(
                b -> b.file().getFileName() + "@" + b.offset() + ":f" + b.flags() + "x" + b.count())
            .toArray());
  }
}
