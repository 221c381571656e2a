package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.UnsupportedFormatException;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentScanner;
import io.docstore.queue.tools.Problem;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Enumerated damage and its documented outcome (docs/formats/segment.md, "Damage and what it
 * means"): damage at the end of the active segment is a torn tail, cut and counted at open; damage
 * before the durable point that a later sync mark claims, or in a sealed segment, is a
 * CorruptionException naming file and offset, and nothing is truncated.
 */
class QueueCorruptionTest {

  @TempDir Path dir;

  private static final QueueOptions OPTIONS = options().build();

  private static QueueOptions.Builder options() {
    return QueueOptions.builder().blockSize(512).segmentSize(4096).syncPolicy(SyncPolicy.NONE);
  }

  private static final int RECORDS = 60;
  private final List<Appended> appended = new ArrayList<>();
  private Path active;
  private Path sealed;
  private List<long[]> activeBlocks;

  /**
   * Appends {@link #RECORDS} records, then loses the power with every page written back (so no
   * clean close marks the whole segment durable): the last blocks are a tail that may be torn.
   */
  @BeforeEach
  void fill() throws IOException {
    Random rnd = new Random(42);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    DocQueue q = DocQueue.open(dir, options().fileSystem(fs).build());
    for (int i = 0; i < RECORDS; i++) {
      byte[] body = new byte[100];
      rnd.nextBytes(body);
      if (i == RECORDS - 1) {
        // As an acknowledgement under sync=always does: the sync mark before the last record
        // says that every earlier block was on disk, so damage there is damage, not a torn write.
        q.writer().sync();
      }
      appended.add(q.writer().append(i, Op.PUT, i, body));
    }
    q.writer().flush();
    fs.crash(FaultInjectingFileSystem.Writeback.mask(-1L, true));
    try {
      q.close();
    } catch (IOException expected) {
      // its handles died with the power
    }
    active = segments(false).get(0);
    sealed = segments(true).get(0);
    activeBlocks = blocks(active);
    assertThat(activeBlocks.size()).isGreaterThanOrEqualTo(3);
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  private List<Path> segments(boolean sealedOnes) throws IOException {
    List<Path> out = new ArrayList<>();
    for (Path p : Files.list(dir).sorted().toList()) {
      SegmentFileName.parse(p).filter(n -> n.sealed() == sealedOnes).ifPresent(n -> out.add(p));
    }
    return out;
  }

  /** {offset, end, firstSequence} of each block of a segment. */
  private static List<long[]> blocks(Path file) throws IOException {
    List<long[]> out = new ArrayList<>();
    try (FileChannel ch = FileChannel.open(file)) {
      SegmentScanner s = new SegmentScanner(file, ch, ch.size(), new BlockReader(1024));
      DecodedBlock b = new DecodedBlock();
      while (s.next(b) == SegmentScanner.Kind.BLOCK) {
        out.add(new long[] {b.offset(), b.end(), b.firstSequence()});
      }
    }
    return out;
  }

  private static void flipBit(Path file, long offset, int bit) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ (1 << bit)));
      b.rewind();
      ch.write(b, offset);
    }
  }

  private static void truncate(Path file, long size) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(size);
    }
  }

  private static void append(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes, StandardOpenOption.APPEND);
  }

  private void expectCorruptionAt(Path file, long offset, String text) {
    assertThatThrownBy(() -> DocQueue.open(dir, OPTIONS).close())
        .isInstanceOfSatisfying(
            CorruptionException.class,
            e -> {
              assertThat(e.file()).isEqualTo(file);
              assertThat(e.offset()).isEqualTo(offset);
            })
        .hasMessageContaining(text);
  }

  private void expectProblemAt(Path file, long offset) throws IOException {
    List<Problem> problems = QueueVerifier.verify(dir);
    assertThat(problems)
        .anySatisfy(
            p -> {
              assertThat(p.file()).isEqualTo(file);
              assertThat(p.offset()).isEqualTo(offset);
            });
  }

  /**
   * Opens, checks that exactly the records before {@code keptSequences} survived, and that the
   * writer resumes.
   */
  private void expectTornTailCut(long keptSequences, long droppedBytes) throws IOException {
    long sizeBefore = Files.size(active);
    try (DocQueue q = DocQueue.open(dir, OPTIONS)) {
      assertThat(q.lastSequence()).isEqualTo(keptSequences);
      assertThat(q.stats().tornTailBytesDropped()).isEqualTo(droppedBytes);
      for (int i = 0; i < keptSequences; i++) {
        assertThat(q.reader().get(appended.get(i).address()).sequence()).isEqualTo(i + 1);
      }
      Appended next = q.writer().append(1, Op.PUT, 0, new byte[] {1});
      assertThat(next.sequence()).isEqualTo(keptSequences + 1);
      q.writer().flush();
      assertThat(q.reader().get(next.address()).body()).containsExactly(1);
    }
    assertThat(sizeBefore - droppedBytes).isGreaterThan(0);
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @Test
  void bitFlipInAMiddleBlockPayloadIsCorruption() throws IOException {
    long[] b = activeBlocks.get(1);
    flipBit(active, b[0] + BlockFormat.HEADER_LENGTH + 50, 3);
    expectCorruptionAt(active, b[0], "checksum mismatch (expected");
    expectProblemAt(active, b[0]);
  }

  @Test
  void bitFlipInAMiddleBlockHeaderIsCorruption() throws IOException {
    for (int field :
        new int[] {
          BlockFormat.CRC,
          BlockFormat.RAW_LENGTH,
          BlockFormat.FIRST_SEQUENCE + 7,
          BlockFormat.STORED_LENGTH + 3
        }) {
      long[] b = activeBlocks.get(0);
      flipBit(active, b[0] + field, 1);
      expectCorruptionAt(active, b[0], "");
      expectProblemAt(active, b[0]);
      flipBit(active, b[0] + field, 1);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @Test
  void bitFlipInAMiddleBlockOffsetTableIsCorruption() throws IOException {
    long[] b = activeBlocks.get(1);
    flipBit(active, b[0] + BlockFormat.HEADER_LENGTH + 2, 0);
    expectCorruptionAt(active, b[0], "checksum mismatch");
  }

  @Test
  void truncationAtEveryOffsetOfTheLastBlockIsATornTail() throws IOException {
    long[] last = activeBlocks.get(activeBlocks.size() - 1);
    byte[] original = Files.readAllBytes(active);
    long kept = last[2] - 1;
    for (long cut = last[0]; cut < last[1]; cut++) {
      truncate(active, cut);
      List<Problem> problems = QueueVerifier.verify(dir);
      if (cut > last[0]) {
        assertThat(problems)
            .singleElement()
            .satisfies(p -> assertThat(p.description()).contains("torn tail"));
      }
      expectTornTailCut(kept, cut - last[0]);
      Files.write(active, original);
    }
  }

  @Test
  void bitFlipInTheLastBlockIsATornTail() throws IOException {
    long[] last = activeBlocks.get(activeBlocks.size() - 1);
    flipBit(active, last[0] + BlockFormat.HEADER_LENGTH + 10, 5);
    expectTornTailCut(last[2] - 1, last[1] - last[0]);
  }

  @Test
  void appendedZeroesAreATornTail() throws IOException {
    append(active, new byte[4096]);
    expectTornTailCut(RECORDS, 4096);
  }

  @Test
  void appendedGarbageIsATornTail() throws IOException {
    byte[] garbage = new byte[3000];
    new Random(7).nextBytes(garbage);
    append(active, garbage);
    expectTornTailCut(RECORDS, 3000);
  }

  @Test
  void truncatedSealedSegmentIsCorruption() throws IOException {
    long size = Files.size(sealed);
    truncate(sealed, size - 10);
    expectCorruptionAt(sealed, size - 10 - SegmentFormat.FOOTER_LENGTH, "footer");
    assertThat(QueueVerifier.verify(dir)).isNotEmpty();
    assertThat(Files.size(sealed)).isEqualTo(size - 10);
  }

  @Test
  void deletedFooterIsCorruption() throws IOException {
    long size = Files.size(sealed);
    truncate(sealed, size - SegmentFormat.FOOTER_LENGTH);
    expectCorruptionAt(sealed, size - 2 * SegmentFormat.FOOTER_LENGTH, "no footer");
    assertThat(QueueVerifier.verify(dir))
        .anySatisfy(p -> assertThat(p.description()).contains("no footer"));
  }

  @ParameterizedTest(name = "mapped reads {0}")
  @ValueSource(booleans = {true, false})
  void bitFlipInASealedBlockFailsTheReadNotTheOpen(boolean mappedReads) throws IOException {
    List<long[]> sealedBlocks = blocks(sealed);
    long[] b = sealedBlocks.get(1);
    QueueOptions options =
        QueueOptions.builder()
            .blockSize(512)
            .segmentSize(4096)
            .syncPolicy(SyncPolicy.NONE)
            .mappedReads(mappedReads)
            .build();
    try (DocQueue q = DocQueue.open(dir, options)) {
      assertThat(q.reader().get(appended.get(0).address()).sequence()).isEqualTo(1);
      // Damage that appears while the queue is open (and the segment mapped) is caught on the next
      // read.
      flipBit(sealed, b[0] + BlockFormat.HEADER_LENGTH + 20, 0);
      long address = appended.get((int) b[2] - 1).address();
      assertThatThrownBy(() -> q.reader().get(address))
          .isInstanceOfSatisfying(
              CorruptionException.class,
              e -> {
                assertThat(e.file()).isEqualTo(sealed);
                assertThat(e.offset()).isEqualTo(b[0]);
              })
          .hasMessageContaining("checksum mismatch");
      assertThat(q.reader().get(appended.get(0).address()).sequence()).isEqualTo(1);
      boolean expectMapped = mappedReads && io.docstore.io.MappedFile.supported();
      assertThat(q.stats().blockReadsMapped() > 0)
          .as("read through the mapping")
          .isEqualTo(expectMapped);
    }
    expectProblemAt(sealed, b[0]);
  }

  /**
   * Where a read of one record from a mapped, uncompressed block looks: its own checksum covers its
   * bytes, its sequence (so the block's first sequence) and, through its bounds, its offset
   * entries. Damage anywhere there fails the read; damage to a neighbouring record fails only that
   * record's read (and the verifier), through the mapping or with a positional read of the block
   * alike.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "first sequence",
        "offset entry",
        "record checksum",
        "record body",
        "neighbour record"
      })
  void aRecordReadChecksWhatItReturns(String where) throws IOException {
    long[] b = blocks(sealed).get(1);
    long payload = b[0] + BlockFormat.HEADER_LENGTH;
    int index = 1;
    int records = 4;
    int rawLength = records * BlockFormat.OFFSET_ENTRY + records * (BlockFormat.RECORD_BODY + 100);
    long recordStart =
        payload + records * BlockFormat.OFFSET_ENTRY + index * (BlockFormat.RECORD_BODY + 100L);
    assertThat(b[1] - payload)
        .as("4 uncompressed records with their checksums")
        .isEqualTo(rawLength + records * BlockFormat.RECORD_CRC);
    long at =
        switch (where) {
          case "first sequence" -> b[0] + BlockFormat.FIRST_SEQUENCE + 7;
          case "offset entry" -> payload + index * BlockFormat.OFFSET_ENTRY + 3;
          case "record checksum" -> payload + rawLength + index * BlockFormat.RECORD_CRC + 2;
          case "record body" -> recordStart + BlockFormat.RECORD_BODY + 60;
          default -> recordStart + BlockFormat.RECORD_BODY + 100 + BlockFormat.RECORD_BODY + 60;
        };
    flipBit(sealed, at, 1);
    Appended wanted = appended.get((int) b[2] - 1 + index);
    for (boolean mappedReads : new boolean[] {true, false}) {
      QueueOptions options =
          QueueOptions.builder()
              .blockSize(512)
              .segmentSize(4096)
              .syncPolicy(SyncPolicy.NONE)
              .mappedReads(mappedReads)
              .build();
      try (DocQueue q = DocQueue.open(dir, options)) {
        boolean mapped = mappedReads && io.docstore.io.MappedFile.supported();
        if (where.equals("neighbour record")) {
          QueueRecord r = q.reader().get(wanted.address());
          assertThat(r.sequence()).isEqualTo(wanted.sequence());
          assertThat(r.id()).isEqualTo((int) wanted.sequence() - 1);
          assertThatThrownBy(() -> q.reader().get(appended.get((int) b[2] + index).address()))
              .isInstanceOfSatisfying(
                  CorruptionException.class, e -> assertThat(e.offset()).isEqualTo(b[0]))
              .hasMessageContaining("record " + (index + 1) + " checksum mismatch");
          assertThat(q.stats().blockReadsMapped()).isEqualTo(mapped ? 1 : 0);
        } else {
          assertThatThrownBy(() -> q.reader().get(wanted.address()))
              .as("mapped %s", mapped)
              .isInstanceOfSatisfying(
                  CorruptionException.class,
                  e -> {
                    assertThat(e.file()).isEqualTo(sealed);
                    assertThat(e.offset()).isEqualTo(b[0]);
                  });
        }
      }
    }
    expectProblemAt(sealed, b[0]);
  }

  @Test
  void bitFlipInASegmentHeaderIsCorruption() throws IOException {
    flipBit(sealed, SegmentFormat.BASE_SEQUENCE + 3, 2);
    expectCorruptionAt(sealed, 0, "segment header checksum mismatch");
    expectProblemAt(sealed, 0);
  }

  @Test
  void tooNewVersionIsUnsupported() throws IOException {
    try (FileChannel ch =
        FileChannel.open(sealed, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer h = ByteBuffer.allocate(SegmentFormat.HEADER_LENGTH);
      ch.read(h, 0);
      h.putInt(SegmentFormat.HEADER_VERSION, SegmentFormat.VERSION + 1);
      h.putInt(SegmentFormat.HEADER_CRC, Checksums.crc32c(h, 0, SegmentFormat.HEADER_CRC));
      ch.write(h.rewind(), 0);
    }
    assertThatThrownBy(() -> DocQueue.open(dir, OPTIONS))
        .isInstanceOfSatisfying(
            UnsupportedFormatException.class,
            e -> assertThat(e.kind()).isEqualTo(UnsupportedFormatException.Kind.TOO_NEW));
  }

  @Test
  void missingSegmentIsCorruption() throws IOException {
    try (DocQueue q = DocQueue.open(dir, OPTIONS)) {
      Random rnd = new Random(1);
      for (int i = 0; i < 100; i++) {
        byte[] body = new byte[100];
        rnd.nextBytes(body);
        q.writer().append(i, Op.PUT, i, body);
      }
    }
    List<Path> all = segments(true);
    assertThat(all.size()).isGreaterThanOrEqualTo(3);
    Files.delete(all.get(1));
    assertThatThrownBy(() -> DocQueue.open(dir, OPTIONS).close())
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("missing");
  }

  @Test
  void strayFilesAreIgnored() throws IOException {
    Files.write(dir.resolve(".seg-0000000001.sealed.Ab12Cd"), new byte[] {1, 2, 3});
    Files.write(dir.resolve("seg-0000000001.sealed~"), new byte[] {1});
    Files.write(dir.resolve("seg-0000000099.active.tmp"), new byte[] {1});
    Files.write(dir.resolve("notes.txt"), new byte[] {1});
    try (DocQueue q = DocQueue.open(dir, OPTIONS)) {
      assertThat(q.lastSequence()).isEqualTo(RECORDS);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }
}
