package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.queue.block.StoredBody;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RELOCATED record (segment version 8) is stored split, its fixed part apart from the original
 * record's body, so that the space reclamation copies that body as its block stores it: the copy
 * reads back as the relocated body, and is stored exactly as compressing the body again would store
 * it; a body stored with another dictionary is compressed again; an older segment holding a split
 * record is reported by the verifier.
 */
class RelocatedCopyTest {

  @TempDir Path dir;

  private static QueueOptions options() {
    return V3Fixtures.options().segmentSize(32 * 1024).build();
  }

  private record Pair(byte[] body, long copied, long compressed) {}

  @Test
  void aCopiedBodyReadsBackAndIsStoredAsCompressingItAgainWouldStoreIt() throws IOException {
    Random rnd = new Random(11);
    List<Pair> pairs = new ArrayList<>();
    int copies = 0;
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 700; i++) {
        byte[] doc = i % 23 == 7 ? new byte[0] : V3Fixtures.json(rnd, 100 + rnd.nextInt(1500));
        switch (i % 3) {
          case 0 -> q.writer().append(i, Op.PUT, i, doc);
          case 1 -> q.writer().append(i, Op.PUT_EXPIRING, i, RecordBody.expiring(5_000L + i, doc));
          default ->
              q.writer()
                  .appendWithGroups(
                      i,
                      i,
                      RecordBody.groups(
                          -1,
                          RecordBody.NEVER,
                          new String[] {"summary"},
                          new byte[][] {("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)}),
                      Op.PUT,
                      doc);
        }
      }
      q.writer().sync();
      List<SegmentSummary> sealed =
          q.segmentSummaries().stream().filter(SegmentSummary::sealed).toList();
      assertThat(sealed).hasSizeGreaterThan(2);
      for (SegmentSummary s : sealed) {
        RecordHeaderScan scan = q.scanHeaders(s.number());
        while (scan.next()) {
          QueueRecord r = q.reader().get(scan.address());
          StoredBody rest = scan.storedRest();
          if (rest != null) {
            copies++;
            assertThat(rest.length()).isEqualTo(r.body().length);
          }
          byte[] body = relocatedBody(r);
          long copied = q.writer().append(r.id(), Op.RELOCATED, 1, body, rest).address();
          long compressed = q.writer().append(r.id(), Op.RELOCATED, 1, body, null).address();
          pairs.add(new Pair(body, copied, compressed));
        }
      }
      q.writer().sync();
      assertThat(copies).as("records whose stored body was copied").isGreaterThan(300);

      int splitSeen = 0;
      for (Pair p : pairs) {
        assertThat(q.reader().get(p.copied()).body()).isEqualTo(p.body());
        assertThat(q.reader().get(p.compressed()).body()).isEqualTo(p.body());
      }
      // Each pair as stored: the same rest bytes, whether copied or compressed here.
      List<byte[]> rests = new ArrayList<>();
      for (SegmentSummary s : q.segmentSummaries()) {
        if (s.lastSequence() < q.lastSequence() - 2L * pairs.size() + 1) {
          continue;
        }
        RecordHeaderScan scan = q.scanHeaders(s.number());
        while (scan.next()) {
          if (scan.op() == Op.RELOCATED) {
            StoredBody rest = scan.storedRest();
            if (rest != null) {
              splitSeen++;
              rests.add(rest.bytes());
            }
          }
        }
      }
      assertThat(splitSeen).as("relocated records stored split").isGreaterThan(2 * 300);
      assertThat(rests.size() % 2).isZero();
      for (int i = 0; i + 1 < rests.size(); i += 2) {
        assertThat(rests.get(i)).as("pair %d", i / 2).isEqualTo(rests.get(i + 1));
      }
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (Pair p : pairs) {
        assertThat(q.reader().get(p.copied()).body()).isEqualTo(p.body());
      }
    }
  }

  @Test
  void aBodyStoredWithAnotherDictionaryIsCompressedAgain() throws IOException {
    Random rnd = new Random(12);
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 200; i++) {
        q.writer().append(i, Op.PUT, i, V3Fixtures.json(rnd, 600));
      }
      byte[] doc = V3Fixtures.json(rnd, 900);
      byte[] body =
          RecordBody.relocated(
              5, 1L << 43, Op.PUT, RecordBody.NEVER, ByteBuffer.wrap(doc), 0, doc.length);
      // Bytes that are no frame of this queue's dictionary: taken as is they would not decode.
      StoredBody foreign = new StoredBody(0x5eed, V3Fixtures.noise(rnd, 300), doc.length);
      long address = q.writer().append(7, Op.RELOCATED, 1, body, foreign).address();
      q.writer().sync();
      assertThat(q.reader().get(address).body()).isEqualTo(body);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @Test
  void theVerifierReportsASplitRecordInASegmentOfAnOlderVersion() throws IOException {
    Random rnd = new Random(13);
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 300; i++) {
        byte[] doc = V3Fixtures.json(rnd, 700);
        q.writer()
            .append(
                i,
                Op.RELOCATED,
                i,
                RecordBody.relocated(
                    i, 1L << 43, Op.PUT, RecordBody.NEVER, ByteBuffer.wrap(doc), 0, doc.length));
      }
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    Path segment;
    try (var files = Files.list(dir)) {
      segment = files.filter(p -> p.toString().endsWith(".active")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(segment);
    ByteBuffer h = ByteBuffer.wrap(bytes);
    h.putInt(SegmentFormat.HEADER_VERSION, 7);
    h.putInt(SegmentFormat.HEADER_CRC, Checksums.crc32c(h, 0, SegmentFormat.HEADER_CRC));
    Files.write(segment, bytes);
    assertThat(QueueVerifier.verify(dir))
        .isNotEmpty()
        .anySatisfy(
            p ->
                assertThat(p.description())
                    .contains("RELOCATED record stored split in a version 7 segment"));
  }

  @Test
  void aDamagedRelocatedRecordIsReportedWithItsFileAndOffset() throws IOException {
    Random rnd = new Random(14);
    List<Long> addresses = new ArrayList<>();
    List<byte[]> bodies = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 400; i++) {
        byte[] doc = V3Fixtures.json(rnd, 700);
        byte[] body =
            RecordBody.relocated(
                i, 1L << 43, Op.PUT, RecordBody.NEVER, ByteBuffer.wrap(doc), 0, doc.length);
        addresses.add(q.writer().append(i, Op.RELOCATED, i, body).address());
        bodies.add(body);
      }
    }
    long victim = addresses.get(300);
    Path file;
    try (var files = Files.list(dir)) {
      String name = String.format("seg-%010d.", Address.segment(victim));
      file = files.filter(p -> p.getFileName().toString().startsWith(name)).findFirst().get();
    }
    long block = Address.blockOffset(victim);
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) block + 400] ^= 0x10; // inside the block's records
    Files.write(file, bytes);

    int damaged = 0;
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < addresses.size(); i++) {
        long a = addresses.get(i);
        try {
          assertThat(q.reader().get(a).body()).as("record %d", i).isEqualTo(bodies.get(i));
        } catch (CorruptionException e) {
          assertThat(Address.segment(a)).isEqualTo(Address.segment(victim));
          assertThat(Address.blockOffset(a)).isEqualTo(block);
          assertThat(e.getMessage()).contains(file.toString()).contains("offset " + block);
          damaged++;
        }
      }
    }
    assertThat(damaged).as("records found damaged").isEqualTo(1);
    assertThat(QueueVerifier.verify(dir))
        .isNotEmpty()
        .anySatisfy(p -> assertThat(p.file()).isEqualTo(file));
  }

  /** The body of a RELOCATED copy of {@code r}: its fixed part, then {@code r}'s body. */
  private static byte[] relocatedBody(QueueRecord r) {
    byte[] body = r.body();
    return switch (r.op()) {
      case PUT_EXPIRING ->
          RecordBody.relocated(
              r.version(),
              r.address(),
              Op.PUT_EXPIRING,
              r.expiresAtMillis(),
              ByteBuffer.wrap(body),
              8,
              body.length - 8);
      default ->
          RecordBody.relocated(
              r.version(),
              r.address(),
              r.op(),
              RecordBody.NEVER,
              ByteBuffer.wrap(body),
              0,
              body.length);
    };
  }
}
