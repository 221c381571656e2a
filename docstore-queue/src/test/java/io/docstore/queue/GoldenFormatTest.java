package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentHeader;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.queue.tools.SegmentDump;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Freezes the segment format versions this build reads. {@code src/test/resources/golden/queue-vN/}
 * holds a queue written by the build that introduced version N (two sealed segments and an active
 * one; compressed and raw blocks, a PUT with an empty body, DELETEs, a record larger than a block,
 * incompressible bytes). This build must read each exactly, and must carry on writing after a
 * version 1 queue without mixing versions in one segment. To add a version after a deliberate
 * format change (with a new version number), run {@link #write} via {@code
 * -Ddocstore.golden.write=<dir>} and add the files as {@code queue-v<new>}.
 *
 * <p>Version 3 holds zstd frames: a zstd-jni upgrade that changes the compressor's output (not the
 * format) fails {@link #writesTheNewestVersion} while {@link #readsEveryVersion} still passes; the
 * frozen files then stay, and the writer's new output is checked by reading it back.
 */
class GoldenFormatTest {

  private static final String[] FILES = {
    "seg-0000000001.sealed", "seg-0000000002.sealed", "seg-0000000003.active"
  };

  /** Records in the golden queues of versions 1 and 2. */
  static final int RECORDS = 60;

  /**
   * Records in the golden queue of version 3: more and larger bodies, so that the writer trains a
   * dictionary from the first {@code dictionarySamples} and writes blocks of records compressed
   * with it.
   */
  static final int RECORDS_V3 = 130;

  private static final String[] FILES_V3 = {
    "seg-0000000001.sealed",
    "seg-0000000002.sealed",
    "seg-0000000003.sealed",
    "seg-0000000004.active"
  };

  @TempDir Path dir;

  static QueueOptions options() {
    return QueueOptions.builder()
        .syncPolicy(SyncPolicy.NONE)
        .blockSize(1024)
        .segmentSize(6000)
        .dictionaryBytes(1024)
        .dictionarySamples(48)
        .build();
  }

  /**
   * Records in the golden queue of version 5: version 3's, then one of each record kind version 5
   * added, three times.
   */
  static final int RECORDS_V5 = RECORDS_V3 + 9;

  /**
   * Records in the golden queue of version 6: version 5's, then a GROUPS record written with its
   * document and the document, a re-projection, and a relocated GROUPS record.
   */
  static final int RECORDS_V6 = RECORDS_V5 + 4;

  /**
   * Records in the golden queue of version 7: version 6's, then a SOURCE record naming the record
   * after it, that record, and a relocated SOURCE record (resolved: it names no record).
   */
  static final int RECORDS_V7 = RECORDS_V6 + 3;

  /*
   * The golden queue of version 8 holds version 7's records: what changed is how its RELOCATED
   * records are stored (split, their fixed part apart from the original record's body).
   */

  static Op op(int i) {
    if (i >= RECORDS_V6) {
      return switch (i - RECORDS_V6) {
        case 0 -> Op.SOURCE;
        case 1 -> Op.PUT;
        default -> Op.RELOCATED;
      };
    }
    if (i >= RECORDS_V5) {
      return switch (i - RECORDS_V5) {
        case 1 -> Op.PUT;
        case 3 -> Op.RELOCATED;
        default -> Op.GROUPS;
      };
    }
    if (i >= RECORDS_V3) {
      return switch ((i - RECORDS_V3) % 3) {
        case 0 -> Op.PUT_EXPIRING;
        case 1 -> Op.RELOCATED;
        default -> Op.DROPPED;
      };
    }
    return i % 7 == 3 ? Op.DELETE : Op.PUT;
  }

  static byte[] body(int i) {
    if (i >= RECORDS_V6) {
      return switch (i - RECORDS_V6) {
        case 0 -> RecordBody.source(3, 501, new long[] {1000 + i + 1}, new long[] {500});
        case 1 -> body(i - 70);
        default -> {
          byte[] resolved = RecordBody.source(3, 501, new long[0], new long[0]);
          yield RecordBody.relocated(
              i - 2,
              8796093202432L + i,
              Op.SOURCE,
              RecordBody.NEVER,
              java.nio.ByteBuffer.wrap(resolved),
              0,
              resolved.length);
        }
      };
    }
    if (i >= RECORDS_V5) {
      String[] names = {"summary", "card"};
      byte[][] projections = {
        ("{\"title\":\"golden " + i + "\"}").getBytes(StandardCharsets.US_ASCII), new byte[0]
      };
      return switch (i - RECORDS_V5) {
        case 0 -> RecordBody.groups(-1, RecordBody.NEVER, names, projections);
        case 1 -> body(i - 70);
        case 2 -> RecordBody.groups(i - 1, 1_800_000_000_000L + i, names, projections);
        default -> {
          byte[] groups = RecordBody.groups(-1, RecordBody.NEVER, names, projections);
          yield RecordBody.relocated(
              i - 3,
              8796093202432L + i,
              Op.GROUPS,
              RecordBody.NEVER,
              java.nio.ByteBuffer.wrap(groups),
              0,
              groups.length);
        }
      };
    }
    if (i >= RECORDS_V3) {
      byte[] document = body(i - 70);
      long original = 8796093202432L + i; // an address in segment 1
      return switch (op(i)) {
        case PUT_EXPIRING -> RecordBody.expiring(1_800_000_000_000L + i, document);
        case RELOCATED ->
            RecordBody.relocated(
                i - 70,
                original,
                i % 2 == 0 ? Op.PUT_EXPIRING : Op.PUT,
                1_800_000_000_000L + i,
                java.nio.ByteBuffer.wrap(document),
                0,
                document.length);
        default -> RecordBody.dropped(i - 70, original);
      };
    }
    if (op(i) == Op.DELETE || i == 5) {
      return new byte[0];
    }
    if (i % 40 == 30) {
      byte[] noise = new byte[470];
      new java.util.Random(i).nextBytes(noise);
      return noise;
    }
    if (i >= RECORDS) {
      return ("{\"id\":"
              + i
              + ",\"title\":\"Senior golden engineer "
              + (i % 13)
              + "\",\"company\":\"Acme "
              + (i % 5)
              + "\",\"location\":\"Austin, TX\",\"salary\":"
              + (90000 + i * 250)
              + ",\"text\":\""
              + "We build storage engines. ".repeat(1 + i % 4)
              + "\"}")
          .getBytes(StandardCharsets.US_ASCII);
    }
    if (i == 20) {
      return "x".repeat(700).getBytes(StandardCharsets.US_ASCII);
    }
    return ("{\"id\":"
            + i
            + ",\"title\":\"golden record "
            + i
            + "\",\"text\":\""
            + "abc".repeat(i % 9)
            + "\"}")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** Records after which the version 4 golden queue is forced, so that sync marks follow. */
  static final java.util.Set<Integer> FORCED_AFTER = java.util.Set.of(99, 100, 114);

  static void write(Path dir) throws IOException {
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < RECORDS_V7; i++) {
        q.writer().append(1000 + i, op(i), 1_700_000_000_000L + i, body(i));
        if (FORCED_AFTER.contains(i)) {
          q.writer().sync();
        }
      }
    }
  }

  @Test
  void writesTheNewestVersion() throws IOException {
    String regenerate = System.getProperty("docstore.golden.write");
    if (regenerate != null) {
      write(Path.of(regenerate));
    }
    write(dir);
    for (String f : files(SegmentFormat.VERSION)) {
      byte[] golden = golden(SegmentFormat.VERSION, f);
      assertThat(Files.readAllBytes(dir.resolve(f)))
          .as(f + " as written by this build")
          .isEqualTo(golden);
    }
  }

  @ParameterizedTest(name = "version {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void readsEveryVersion(int version) throws IOException {
    copyGolden(version);
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    String dump = dump(files(version));
    assertThat(dump)
        .contains("format docstore.segment v" + version + ", segment 1, base sequence 1")
        .contains("lz4")
        .contains(
            version == 1
                ? ", raw,"
                : version == 2
                    ? ", raw with record crcs,"
                    : ", records one by one with record crcs,")
        .contains("footer @");
    if (version >= 3) {
      assertThat(dump).contains(", zstd dictionary,");
    }
    if (version >= 4) {
      assertThat(dump).contains(", sync mark: the first ");
    }
    if (version >= 8) {
      assertThat(dump).contains(" relocated, stored split)");
    } else {
      assertThat(dump).doesNotContain("stored split");
    }
    int records =
        version >= 7
            ? RECORDS_V7
            : version >= 6
                ? RECORDS_V6
                : version >= 5 ? RECORDS_V5 : version >= 3 ? RECORDS_V3 : RECORDS;
    try (DocQueue q = DocQueue.open(dir, options())) {
      assertThat(q.lastSequence()).isEqualTo(records);
      readsBack(q, records);
    }
  }

  private static String[] files(int version) {
    return version >= 3 ? FILES_V3 : FILES;
  }

  @Test
  void appendingToAVersionOneQueueSealsItsActiveSegmentAndWritesTheNewestVersion()
      throws IOException {
    copyGolden(1);
    Path active = dir.resolve(FILES[2]);
    byte[] before = Files.readAllBytes(active);
    int more = 25;
    try (DocQueue q = DocQueue.open(dir, options())) {
      assertThat(Files.exists(active)).isFalse();
      assertThat(Files.readAllBytes(dir.resolve("seg-0000000003.sealed")))
          .as("sealed as written: blocks unchanged, a footer added")
          .startsWith(before)
          .hasSize(before.length + SegmentFormat.FOOTER_LENGTH);
      for (int i = RECORDS; i < RECORDS + more; i++) {
        q.writer().append(1000 + i, op(i), 1_700_000_000_000L + i, body(i));
      }
      q.writer().flush();
      readsBack(q, RECORDS + more);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    try (DocQueue q = DocQueue.open(dir, options())) {
      readsBack(q, RECORDS + more);
    }
    String[] files;
    try (var list = Files.list(dir)) {
      files =
          list.map(p -> p.getFileName().toString())
              .filter(n -> n.startsWith("seg-"))
              .sorted()
              .toArray(String[]::new);
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(4);
    String dump = dump(files);
    assertThat(dump)
        .contains("format docstore.segment v1, segment 3")
        .contains("format docstore.segment v" + SegmentFormat.VERSION + ", segment 4")
        .doesNotContain("format docstore.segment v1, segment 4");
  }

  @Test
  void anEmptyVersionOneActiveSegmentIsReplacedByOneOfTheNewestVersion() throws IOException {
    copyGolden(1);
    Path active = dir.resolve(FILES[2]);
    long base;
    try (FileChannel ch = FileChannel.open(active)) {
      base = SegmentHeader.read(ch, active).baseSequence();
    }
    // An empty version 1 active segment: its header alone, as a version 1 writer left it after a
    // roll.
    Files.write(active, new SegmentHeader(3, base, 1).encode().array());
    try (DocQueue q = DocQueue.open(dir, options())) {
      assertThat(dump(FILES[2]))
          .contains(
              "format docstore.segment v"
                  + SegmentFormat.VERSION
                  + ", segment 3, base sequence "
                  + base);
      q.writer().append(1, Op.PUT, 1, body(1));
      Appended a = q.writer().append(2, Op.PUT, 2, body(2));
      q.writer().flush();
      assertThat(q.reader().get(a.address()).body()).isEqualTo(body(2));
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  /** A queue that is only an empty version 1 active segment keeps its number and base sequence. */
  @Test
  void anEmptyVersionOneActiveSegmentAloneKeepsItsBaseSequence() throws IOException {
    Path active = dir.resolve("seg-0000000007.active");
    Files.write(active, new SegmentHeader(7, 1000, 1).encode().array());
    try (DocQueue q = DocQueue.open(dir, options())) {
      assertThat(dump("seg-0000000007.active"))
          .contains(
              "format docstore.segment v"
                  + SegmentFormat.VERSION
                  + ", segment 7, base sequence 1000");
      assertThat(q.writer().append(1, Op.PUT, 1, body(1)).sequence()).isEqualTo(1000);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  /**
   * The verifier holds each version to its kind of uncompressed block: with record checksums in 2,
   * without in 1.
   */
  @ParameterizedTest(name = "version {0} relabelled")
  @ValueSource(ints = {1, 2})
  void verifyReportsUncompressedBlocksOfTheOtherVersion(int version) throws IOException {
    copyGolden(version);
    for (String f : FILES) {
      byte[] bytes = Files.readAllBytes(dir.resolve(f));
      java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(bytes);
      h.putInt(SegmentFormat.HEADER_VERSION, 3 - version);
      h.putInt(
          SegmentFormat.HEADER_CRC,
          io.docstore.io.Checksums.crc32c(h, 0, SegmentFormat.HEADER_CRC));
      Files.write(dir.resolve(f), bytes);
    }
    assertThat(QueueVerifier.verify(dir))
        .isNotEmpty()
        .allSatisfy(
            p -> {
              assertThat(p.description())
                  .contains(
                      "uncompressed block "
                          + (version == 2 ? "with" : "without")
                          + " record checksums in a version "
                          + (3 - version)
                          + " segment");
            });
  }

  private void readsBack(DocQueue q, int records) throws IOException {
    try (QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < records; i++) {
        QueueRecord r = t.poll();
        assertThat(r.sequence()).isEqualTo(i + 1);
        assertThat(r.id()).isEqualTo(1000 + i);
        assertThat(r.op()).isEqualTo(op(i));
        assertThat(r.acceptedAtMillis()).isEqualTo(1_700_000_000_000L + i);
        assertThat(r.body()).isEqualTo(body(i));
        QueueRecord random = q.reader().get(r.address());
        assertThat(random.body()).isEqualTo(body(i));
        assertThat(random.sequence()).isEqualTo(i + 1);
      }
      assertThat(t.poll()).isNull();
    }
  }

  private static byte[] golden(int version, String file) throws IOException {
    try (InputStream in =
        GoldenFormatTest.class.getResourceAsStream("/golden/queue-v" + version + "/" + file)) {
      assertThat(in).as(file).isNotNull();
      return in.readAllBytes();
    }
  }

  private void copyGolden(int version) throws IOException {
    for (String f : files(version)) {
      Files.write(dir.resolve(f), golden(version, f));
    }
  }

  private String dump(String... files) throws IOException {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    for (String f : files) {
      assertThat(
              SegmentDump.dump(dir.resolve(f), new PrintStream(text, true, StandardCharsets.UTF_8)))
          .as(f)
          .isTrue();
    }
    return text.toString(StandardCharsets.UTF_8);
  }
}
