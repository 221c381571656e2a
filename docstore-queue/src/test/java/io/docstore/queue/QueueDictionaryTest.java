package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Segment format 3, case by case: the dictionary is trained once per queue and comes back at
 * reopen, a torn tail after a dictionary block is cut and appends go on, no dictionary when it is
 * off, incompressible bodies stored as they are, bulk loads train and use it, and blocks written by
 * appends stay within a page.
 */
class QueueDictionaryTest {

  @TempDir Path dir;

  private final List<Expected> model = new ArrayList<>();

  private void appendJson(DocQueue q, Random rnd, int n) throws IOException {
    V3Fixtures.appendJson(q, rnd, n, model);
  }

  /**
   * CSV-like lines, unlike the JSON the dictionary was trained on: a dictionary trained again would
   * differ.
   */
  private void appendCsv(DocQueue q, Random rnd, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      StringBuilder b = new StringBuilder();
      int lines = 3 + rnd.nextInt(30);
      for (int l = 0; l < lines; l++) {
        b.append(rnd.nextInt(100_000))
            .append(";order;")
            .append(rnd.nextBoolean() ? "shipped" : "pending")
            .append(';')
            .append(rnd.nextInt(999))
            .append(".")
            .append(rnd.nextInt(99))
            .append(";EUR\n");
      }
      byte[] body = b.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      long seq = model.size() + 1;
      Appended a = q.writer().append(seq, Op.PUT, seq, body);
      model.add(new Expected(seq, seq, Op.PUT, seq, body, a.address()));
    }
  }

  private List<Block> dictionaryBlocks() throws IOException {
    return allBlocks(dir).stream().filter(Block::dictionary).toList();
  }

  /**
   * The block holding the record appended at {@code sequence} is compressed with {@code
   * dictionary}, that record too.
   */
  private void assertCompressedWith(long sequence, byte[] dictionary, String what)
      throws IOException {
    List<Block> blocks = allBlocks(dir);
    Block b = blockOf(blocks, sequence);
    assertThat(b.zstd())
        .as("%s: block of sequence %d in %s", what, sequence, describe(blocks))
        .isTrue();
    assertThat(b.dictId())
        .as(what)
        .isEqualTo(RecordDictionary.idOf(dictionary, 0, dictionary.length));
    assertThat(stored(b, (int) (sequence - b.firstSequence())).compressed()).as(what).isTrue();
    assertThat(blocks(b.file()).get(0).dictionary()).as(what).isTrue();
    assertThat(dictionaryBytes(blocks(b.file()).get(0))).as(what).isEqualTo(dictionary);
  }

  @Test
  void aReopenedQueueStartsNewSegmentsWithTheSameDictionaryWithoutTrainingAgain()
      throws IOException {
    Random rnd = new Random(1);
    QueueOptions options = options().segmentSize(64 * 1024).build();
    try (DocQueue q = DocQueue.open(dir, options)) {
      appendJson(q, rnd, 400);
    }
    List<Block> before = dictionaryBlocks();
    assertThat(before).isNotEmpty();
    byte[] dictionary = dictionaryBytes(before.get(0));
    assertThat(dictionary.length).isBetween(256, 4096);
    int segmentsBefore = segments(dir).size();

    // Reopened with the active segment holding the dictionary and blocks: the very first block is
    // compressed with it (training again would store the first 50 records LZ4-compressed).
    long firstAfterReopen = model.size() + 1;
    try (DocQueue q = DocQueue.open(dir, options)) {
      appendCsv(q, rnd, 700);
    }
    assertCompressedWith(firstAfterReopen, dictionary, "first record after reopen");
    assertThat(segments(dir).size()).isGreaterThan(segmentsBefore + 1);
    List<Block> after = dictionaryBlocks();
    assertThat(after.size()).isGreaterThan(before.size() + 1);
    for (Block b : after) {
      assertThat(dictionaryBytes(b)).as("dictionary of %s", b.file()).isEqualTo(dictionary);
    }

    // Reopened right after a roll: the active segment is empty, the dictionary comes from the one
    // before.
    try (DocQueue q = DocQueue.open(dir, options)) {
      for (int i = 0; i < 2000 && Files.size(active(dir)) != SegmentFormat.HEADER_LENGTH; i++) {
        appendJson(q, rnd, 1);
        q.writer().flush();
      }
    }
    Path empty = active(dir);
    assertThat(Files.size(empty)).isEqualTo(SegmentFormat.HEADER_LENGTH);
    firstAfterReopen = model.size() + 1;
    try (DocQueue q = DocQueue.open(dir, options)) {
      appendCsv(q, rnd, 30);
    }
    assertThat(blocks(empty).get(0).dictionary()).isTrue();
    assertCompressedWith(
        firstAfterReopen, dictionary, "first record after reopening an empty active segment");

    try (DocQueue q = DocQueue.open(dir, options)) {
      checkAll(q, model, 1, "after reopens");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @ParameterizedTest(name = "torn inside the {0}")
  @ValueSource(strings = {"first zstd block", "dictionary block"})
  void aTornTailAfterTheDictionaryIsCutAndAppendsGoOn(String where) throws IOException {
    model.addAll(fillJson(dir, 900));
    Path active = active(dir);
    List<Block> blocks = blocks(active);
    Block dict = blocks.get(0);
    assertThat(dict.dictionary()).as(describe(blocks)).isTrue();
    Block first = blocks.stream().filter(Block::zstd).findFirst().orElseThrow();
    assertThat(blocks.stream().filter(Block::zstd).count())
        .as(describe(blocks))
        .isGreaterThanOrEqualTo(2);
    byte[] dictionary = dictionaryBytes(dict);
    boolean inDictionary = where.startsWith("dictionary");
    long cut =
        inDictionary
            ? dict.offset() + (dict.end() - dict.offset()) / 2
            : first.offset() + (first.end() - first.offset()) / 2;
    long kept = (inDictionary ? dict.firstSequence() : first.firstSequence()) - 1;
    long size = Files.size(active);
    truncate(active, cut);

    Random rnd = new Random(2);
    for (boolean mapped : new boolean[] {true, false}) {
      try (DocQueue q = DocQueue.open(dir, small(mapped))) {
        if (mapped) {
          assertThat(q.stats().tornTailBytesDropped())
              .isEqualTo(cut - (inDictionary ? dict.offset() : first.offset()));
          assertThat(q.lastSequence()).isEqualTo(kept);
          model.subList((int) kept, model.size()).clear();
          checkAll(q, model, 1, where + ": what was before the tear");
          long next = model.size() + 1;
          appendJson(q, rnd, 300);
          q.writer().flush();
          checkAll(q, model, next, where + ": appended after recovery");
          assertThat(size).isGreaterThan(cut);
        } else {
          checkAll(q, model, 1, where + ": reopened, positional reads");
        }
      }
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    // The segment that was torn (sealed by now, or still active) starts with the same dictionary
    // again, and the new records use it.
    Path torn =
        segments(dir).stream().filter(p -> number(p) == number(active)).findFirst().orElseThrow();
    assertThat(dictionaryBytes(blocks(torn).get(0))).isEqualTo(dictionary);
    assertCompressedWith(kept + 1, dictionary, "first record appended after recovery");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"dictionaryBytes 0", "segment smaller than twice the dictionary"})
  void withoutADictionaryNoDictionaryOrZstdBlockIsWritten(String how) throws IOException {
    QueueOptions options =
        how.startsWith("dictionaryBytes")
            ? options().dictionaryBytes(0).segmentSize(64 * 1024).build()
            : options().dictionaryBytes(4096).segmentSize(8191).build();
    assertThat(options.dictionaryBytes()).isZero();
    Random rnd = new Random(3);
    try (DocQueue q = DocQueue.open(dir, options)) {
      for (int i = 0; i < 1200; i++) {
        model.add(appendRandom(q, rnd, model.size() + 1));
        if (rnd.nextInt(50) == 0) {
          q.writer().flush();
        }
      }
      q.writer().flush();
      checkAll(q, model, 1, how);
    }
    List<Block> blocks = allBlocks(dir);
    assertThat(blocks).noneMatch(Block::dictionary).noneMatch(Block::zstd);
    assertThat(blocks.stream().filter(Block::lz4).count()).isGreaterThan(10);
    // Blocks of records stored one by one (for incompressible data) name no dictionary and compress
    // nothing.
    for (Block b : blocks) {
      for (int i = 0; b.zrecords() && i < b.count(); i++) {
        assertThat(stored(b, i).compressed()).isFalse();
      }
    }
    try (DocQueue q = DocQueue.open(dir, options)) {
      checkAll(q, model, 1, how + ", reopened");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @Test
  void incompressibleBodiesAreStoredAsTheyAreEvenWithADictionaryAndCompressionResumesAfterThem()
      throws IOException {
    Random rnd = new Random(4);
    List<Long> noise = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, options().build())) {
      appendJson(q, rnd, 200);
      q.writer().flush();
      for (int i = 0; i < 400; i++) {
        byte[] body = noise(rnd, 100 + rnd.nextInt(1500));
        long seq = model.size() + 1;
        Appended a = q.writer().append(seq, Op.PUT, seq, body);
        model.add(new Expected(seq, seq, Op.PUT, seq, body, a.address()));
        noise.add(seq);
      }
      q.writer().flush();
      appendJson(q, rnd, 600);
      q.writer().flush();
      checkAll(q, model, 1, "mixed");
    }
    List<Block> blocks = allBlocks(dir);
    byte[] dictionary = dictionaryBytes(dictionaryBlocks().get(0));
    int dictId = RecordDictionary.idOf(dictionary, 0, dictionary.length);
    long storedPlain = 0;
    for (long seq : noise) {
      Block b = blockOf(blocks, seq);
      assertThat(b.zrecords())
          .as("block of random body %d: %s", seq, describe(List.of(b)))
          .isTrue();
      assertThat(b.dictId()).isEqualTo(dictId);
      StoredRecord r = stored(b, (int) (seq - b.firstSequence()));
      assertThat(r.storedBody())
          .as("random body %d stored as it is", seq)
          .isEqualTo(r.bodyLength());
      storedPlain++;
    }
    assertThat(storedPlain).isEqualTo(400);
    // After 400 bodies that did not compress, JSON bodies are compressed again: the first probe
    // comes within one probe interval (BlockBuilder.RECORD_PROBE_EVERY records), then all are.
    long compressed = 0;
    for (int i = model.size() - 200; i < model.size(); i++) {
      Block b = blockOf(blocks, i + 1);
      compressed += b.zstd() && stored(b, (int) (i + 1 - b.firstSequence())).compressed() ? 1 : 0;
    }
    assertThat(compressed).as("of the last 200 JSON bodies").isGreaterThan(150);
    try (DocQueue q = DocQueue.open(dir, options().mappedReads(false).build())) {
      checkAll(q, model, 1, "reopened");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @Test
  void aBulkLoadTrainsTheDictionaryAndCompressesWithIt() throws IOException {
    Random rnd = new Random(5);
    QueueOptions options = options().segmentSize(64 * 1024).build();
    try (DocQueue q = DocQueue.open(dir, options)) {
      appendJson(q, rnd, 20); // fewer than the samples: no dictionary yet
      q.writer().flush();
      List<long[]> told = new ArrayList<>();
      long first = model.size() + 1;
      BulkAppender bulk =
          q.bulkAppender(2, (seq, id, op, address) -> told.add(new long[] {seq, address}));
      List<byte[]> bodies = new ArrayList<>();
      for (int i = 0; i < 1500; i++) {
        byte[] body = i % 11 == 0 ? new byte[0] : json(rnd, 100 + rnd.nextInt(1800));
        bodies.add(body);
        bulk.add(first + i, i % 11 == 0 ? Op.DELETE : Op.PUT, i, body);
      }
      bulk.finish();
      assertThat(told).hasSize(1500);
      for (int i = 0; i < 1500; i++) {
        assertThat(told.get(i)[0]).isEqualTo(first + i);
        model.add(
            new Expected(
                first + i,
                first + i,
                i % 11 == 0 ? Op.DELETE : Op.PUT,
                i,
                bodies.get(i),
                told.get(i)[1]));
      }
      appendJson(q, rnd, 100);
      q.writer().flush();
      checkAll(q, model, 1, "after the bulk load");
    }
    List<Block> blocks = allBlocks(dir);
    List<Block> zstd = blocks.stream().filter(Block::zstd).toList();
    assertThat(zstd.stream().mapToLong(Block::count).sum())
        .as("records in zstd blocks")
        .isGreaterThan(1200);
    byte[] dictionary = dictionaryBytes(dictionaryBlocks().get(0));
    for (Block b : zstd) {
      assertThat(dictionaryBytes(blocks(b.file()).get(0))).isEqualTo(dictionary);
    }
    assertCompressedWith(model.size(), dictionary, "ordinary append after the bulk load");
    try (DocQueue q = DocQueue.open(dir, options)) {
      checkAll(q, model, 1, "reopened");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  /** docs/formats/segment.md, "one page per block": a cold read of one record is one page. */
  @Test
  void blocksOfZrecordsWrittenByAppendsLieWithinOnePage() throws IOException {
    long segmentSize = 512 * 1024;
    Random rnd = new Random(6);
    try (DocQueue q = DocQueue.open(dir, options().segmentSize(segmentSize).build())) {
      for (int i = 0; i < 3000; i++) {
        int dice = rnd.nextInt(10);
        byte[] body =
            dice == 0
                ? noise(rnd, 50 + rnd.nextInt(1900))
                : dice == 1 ? new byte[0] : json(rnd, 50 + rnd.nextInt(1950));
        long seq = model.size() + 1;
        Appended a = q.writer().append(seq, Op.PUT, seq, body);
        model.add(new Expected(seq, seq, Op.PUT, seq, body, a.address()));
        if (rnd.nextInt(30) == 0) {
          q.writer().flush();
        }
      }
      q.writer().flush();
      checkAll(q, model, 1, "aligned");
    }
    int checked = 0;
    for (Block b : allBlocks(dir)) {
      if ((b.zrecords() || b.padding()) && b.end() < segmentSize - 2 * PAGE) {
        assertThat((b.end() - 1) / PAGE)
            .as(
                "block %s@%d..%d (%d records)",
                b.file().getFileName(), b.offset(), b.end(), b.count())
            .isEqualTo(b.offset() / PAGE);
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(100);
    assertThat(Address.index(model.get(model.size() - 1).address())).isGreaterThanOrEqualTo(0);
  }

  /**
   * The same for a bulk load: its workers lay blocks out by pages, and the writer lands each batch
   * where they assumed.
   */
  @Test
  void blocksOfZrecordsWrittenByABulkLoadLieWithinOnePage() throws IOException {
    long segmentSize = 512 * 1024;
    Random rnd = new Random(7);
    int n = 6000;
    try (DocQueue q = DocQueue.open(dir, options().segmentSize(segmentSize).build())) {
      appendJson(q, rnd, 37); // the bulk load starts somewhere inside a page
      q.writer().flush();
      List<long[]> told = new ArrayList<>();
      long first = model.size() + 1;
      List<byte[]> bodies = new ArrayList<>();
      BulkAppender bulk =
          q.bulkAppender(2, (seq, id, op, address) -> told.add(new long[] {seq, address}));
      for (int i = 0; i < n; i++) {
        int dice = rnd.nextInt(10);
        byte[] body =
            dice == 0
                ? noise(rnd, 50 + rnd.nextInt(1900))
                : dice == 1 ? new byte[0] : json(rnd, 50 + rnd.nextInt(1950));
        bodies.add(body);
        bulk.add(first + i, Op.PUT, i, body);
      }
      bulk.finish();
      assertThat(told).hasSize(n);
      for (int i = 0; i < n; i++) {
        assertThat(told.get(i)[0]).isEqualTo(first + i);
        model.add(new Expected(first + i, first + i, Op.PUT, i, bodies.get(i), told.get(i)[1]));
      }
      checkAll(q, model, 1, "bulk-loaded");
    }
    int checked = 0;
    long stored = 0;
    long padding = 0;
    for (Block b : allBlocks(dir)) {
      stored += b.end() - b.offset();
      if (b.padding()) {
        padding += b.end() - b.offset();
      }
      if ((b.zrecords() || b.padding()) && b.end() < segmentSize - 2 * PAGE) {
        assertThat((b.end() - 1) / PAGE)
            .as(
                "block %s@%d..%d (%d records)",
                b.file().getFileName(), b.offset(), b.end(), b.count())
            .isEqualTo(b.offset() / PAGE);
        checked++;
      }
    }
    assertThat(checked).as("blocks of zrecords checked").isGreaterThan(500);
    assertThat(padding)
        .as("padding blocks' bytes against all stored bytes")
        .isLessThan(stored / 20);
    try (DocQueue q = DocQueue.open(dir, options().segmentSize(segmentSize).build())) {
      checkAll(q, model, 1, "reopened");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }
}
