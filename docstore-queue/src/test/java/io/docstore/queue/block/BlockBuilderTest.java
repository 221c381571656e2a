package io.docstore.queue.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.queue.format.BlockFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Block encoding (BlockBuilder) and decoding (BlockReader, DecodedBlock) round trips and checks.
 */
class BlockBuilderTest {

  @TempDir Path dir;

  private DecodedBlock roundTrip(ByteBuffer block) throws IOException {
    Path f = dir.resolve("b" + System.nanoTime());
    byte[] bytes = new byte[block.remaining()];
    block.get(bytes);
    Files.write(f, bytes);
    try (FileChannel ch = FileChannel.open(f)) {
      DecodedBlock d = new DecodedBlock();
      new BlockReader(64).read(ch, f, 0, bytes.length, d);
      return d;
    }
  }

  @Test
  void compressibleRecordsAreStoredLz4AndReadBack() throws IOException {
    BlockBuilder b = new BlockBuilder();
    for (int i = 0; i < 10; i++) {
      b.add(
          100 + i,
          i,
          1000 + i,
          i % 2 == 0 ? BlockFormat.OP_PUT : BlockFormat.OP_DELETE,
          i % 2 == 0 ? "hello hello hello hello".getBytes(StandardCharsets.US_ASCII) : new byte[0]);
    }
    assertThat(b.storedLength()).isEqualTo(10 * (4 + 4) + 10 * 17 + 5 * 23);
    ByteBuffer block = b.finish();
    assertThat(b.isEmpty()).isTrue();
    assertThat(b.lastSequence()).isEqualTo(109);
    DecodedBlock d = roundTrip(block);
    assertThat(d.compressed()).isTrue();
    assertThat(d.count()).isEqualTo(10);
    assertThat(d.firstSequence()).isEqualTo(100);
    assertThat(d.crc()).isEqualTo(b.lastCrc());
    for (int i = 0; i < 10; i++) {
      assertThat(d.id(i)).isEqualTo(i);
      assertThat(d.acceptedAtMillis(i)).isEqualTo(1000 + i);
      assertThat(d.op(i)).isEqualTo(i % 2 == 0 ? BlockFormat.OP_PUT : BlockFormat.OP_DELETE);
      assertThat(d.bodyLength(i)).isEqualTo(i % 2 == 0 ? 23 : 0);
    }
    assertThat(new String(d.body(0), StandardCharsets.US_ASCII))
        .isEqualTo("hello hello hello hello");
  }

  @Test
  void aHeaderReadChecksTheWholeBlockButDecodesNothing() throws IOException {
    BlockBuilder b = new BlockBuilder();
    for (int i = 0; i < 5; i++) {
      b.add(40 + i, i, 7, BlockFormat.OP_PUT, ("doc " + i + " doc doc doc").getBytes());
    }
    ByteBuffer block = b.finish();
    byte[] bytes = new byte[block.remaining()];
    block.get(bytes);
    Path f = dir.resolve("h");
    Files.write(f, bytes);
    BlockHeader h = new BlockHeader();
    try (FileChannel ch = FileChannel.open(f)) {
      new BlockReader(64).readHeader(ch, f, 0, bytes.length, h);
    }
    assertThat(h.firstSequence()).isEqualTo(40);
    assertThat(h.lastSequence()).isEqualTo(44);
    assertThat(h.count()).isEqualTo(5);
    assertThat(h.crc()).isEqualTo(b.lastCrc());
    assertThat(h.end()).isEqualTo(bytes.length);
    // One flipped byte of the payload (the last) fails the header read: the checksum covers it.
    bytes[bytes.length - 1] ^= 1;
    Files.write(f, bytes);
    try (FileChannel ch = FileChannel.open(f)) {
      assertThatThrownBy(() -> new BlockReader(64).readHeader(ch, f, 0, bytes.length, h))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining(f.toString())
          .hasMessageContaining("checksum");
    }
  }

  @Test
  void incompressibleRecordsAreStoredRaw() throws IOException {
    BlockBuilder b = new BlockBuilder();
    byte[] noise = new byte[3000];
    new Random(3).nextBytes(noise);
    b.add(1, 42, 7, BlockFormat.OP_PUT, noise);
    DecodedBlock d = roundTrip(b.finish());
    assertThat(d.compressed()).isFalse();
    assertThat(d.recordChecksums()).isTrue();
    assertThat(d.storedLength()).isEqualTo(d.rawLength() + 4);
    assertThat(d.body(0)).isEqualTo(noise);
  }

  /**
   * After a run of incompressible blocks compression is only probed, one block in {@link
   * BlockBuilder#PROBE_EVERY}: compressible data after the run is compressed again within that many
   * blocks, and from then on every block; every block reads back either way.
   */
  @Test
  void afterARunOfIncompressibleBlocksCompressionIsProbedAndResumes() throws IOException {
    BlockBuilder b = new BlockBuilder();
    Random rnd = new Random(5);
    byte[] text =
        "compressible text, compressible text, compressible text"
            .repeat(20)
            .getBytes(StandardCharsets.US_ASCII);
    long seq = 1;
    int firstCompressed = -1;
    for (int block = 0; block < 60; block++) {
      boolean noise = block < 20;
      byte[] body = text;
      if (noise) {
        body = new byte[1000];
        rnd.nextBytes(body);
      }
      b.add(seq, block, 0, BlockFormat.OP_PUT, body);
      DecodedBlock d = roundTrip(b.finish());
      assertThat(d.body(0)).isEqualTo(body);
      assertThat(d.firstSequence()).isEqualTo(seq++);
      if (noise) {
        assertThat(d.compressed()).as("block %d", block).isFalse();
      } else if (d.compressed() && firstCompressed < 0) {
        firstCompressed = block;
      } else if (firstCompressed >= 0) {
        assertThat(d.compressed())
            .as("block %d after compression resumed at %d", block, firstCompressed)
            .isTrue();
      }
    }
    // Block 20, the first compressible one, was stored raw (compression was being skipped), and
    // compression resumed within one probe interval.
    assertThat(firstCompressed).isBetween(21, 20 + BlockBuilder.PROBE_EVERY - 1);
    // Fewer than SKIP_AFTER incompressible blocks never stop compression.
    BlockBuilder fresh = new BlockBuilder();
    for (int block = 0; block < BlockBuilder.SKIP_AFTER - 1; block++) {
      byte[] body = new byte[1000];
      rnd.nextBytes(body);
      fresh.add(block + 1, block, 0, BlockFormat.OP_PUT, body);
      fresh.finish();
    }
    fresh.add(BlockBuilder.SKIP_AFTER, 1, 0, BlockFormat.OP_PUT, text);
    assertThat(roundTrip(fresh.finish()).compressed()).isTrue();
  }

  @Test
  void anUncompressedBlockStoresEachRecordsChecksumOverItsSequenceAndBytes() throws IOException {
    BlockBuilder b = new BlockBuilder();
    Random rnd = new Random(6);
    byte[][] bodies = new byte[5][];
    for (int i = 0; i < bodies.length; i++) {
      bodies[i] = new byte[i * 40];
      rnd.nextBytes(bodies[i]);
      b.add(77 + i, 1000 + i, 5 + i, BlockFormat.OP_PUT, bodies[i]);
    }
    ByteBuffer block = b.finish();
    assertThat(block.get(BlockFormat.FLAGS)).isEqualTo((byte) BlockFormat.FLAG_RECORD_CRCS);
    int raw = block.getInt(BlockFormat.RAW_LENGTH);
    assertThat(block.getInt(BlockFormat.STORED_LENGTH)).isEqualTo(raw + 5 * 4);
    int payload = BlockFormat.HEADER_LENGTH;
    for (int i = 0; i < bodies.length; i++) {
      int start = block.getInt(payload + 4 * i);
      ByteBuffer model = ByteBuffer.allocate(8 + 17 + bodies[i].length);
      model.putLong(77 + i).putLong(1000 + i).putLong(5 + i).put(BlockFormat.OP_PUT).put(bodies[i]);
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(model.array());
      assertThat(block.getInt(payload + raw + 4 * i))
          .as("record %d", i)
          .isEqualTo(Checksums.mask((int) crc.getValue()));
      assertThat(block.getLong(payload + start)).isEqualTo(1000 + i);
    }
  }

  @Test
  void aRecordChecksumThatDisagreesWithAGoodBlockChecksumIsFoundByACheckingReader()
      throws IOException {
    BlockBuilder b = new BlockBuilder();
    Random rnd = new Random(7);
    for (int i = 1; i <= 2; i++) {
      byte[] noise = new byte[300];
      rnd.nextBytes(noise);
      b.add(i, i, i, BlockFormat.OP_PUT, noise);
    }
    ByteBuffer block = b.finish();
    byte[] bytes = new byte[block.remaining()];
    block.get(bytes);
    ByteBuffer w = ByteBuffer.wrap(bytes);
    int second = BlockFormat.HEADER_LENGTH + w.getInt(BlockFormat.RAW_LENGTH) + 4;
    w.putInt(second, w.getInt(second) ^ 1);
    w.putInt(BlockFormat.CRC, Checksums.crc32c(bytes, 4, bytes.length - 4));
    Path f = dir.resolve("badrecordcrc");
    Files.write(f, bytes);
    try (FileChannel ch = FileChannel.open(f)) {
      DecodedBlock d = new DecodedBlock();
      new BlockReader(64).read(ch, f, 0, bytes.length, d);
      assertThat(d.count()).as("a reader of whole blocks trusts the block checksum").isEqualTo(2);
      assertThatThrownBy(() -> new BlockReader(64, true).read(ch, f, 0, bytes.length, d))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("record 1 fails its own checksum");
    }
  }

  @Test
  void fitsRespectsBlockSizeButAlwaysTakesAFirstRecord() {
    BlockBuilder b = new BlockBuilder();
    assertThat(b.fits(1 << 20, 512)).isTrue();
    b.add(1, 1, 1, BlockFormat.OP_PUT, new byte[512 - BlockFormat.storedRecordCost(0)]);
    assertThat(b.storedLength()).isEqualTo(512);
    assertThat(b.fits(0, 512)).isFalse();
    assertThat(b.full(512)).isTrue();
    assertThatThrownBy(() -> b.add(5, 1, 1, BlockFormat.OP_PUT, new byte[0]))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void checksumCoversEveryByteAndAValidChecksumOverABadTableIsStillCaught() throws IOException {
    BlockBuilder b = new BlockBuilder();
    byte[] noise = new byte[100];
    new Random(4).nextBytes(noise);
    byte[] noise2 = new byte[100];
    new Random(5).nextBytes(noise2);
    b.add(1, 1, 1, BlockFormat.OP_PUT, noise);
    b.add(2, 2, 2, BlockFormat.OP_PUT, noise2);
    ByteBuffer block = b.finish();
    byte[] bytes = new byte[block.remaining()];
    block.get(bytes);
    for (int i = 0; i < bytes.length; i++) {
      byte[] damaged = bytes.clone();
      damaged[i] ^= 0x10;
      assertThatThrownBy(() -> roundTrip(ByteBuffer.wrap(damaged)))
          .as("flip at %d", i)
          .isInstanceOf(CorruptionException.class);
    }
    byte[] badTable = bytes.clone();
    ByteBuffer w = ByteBuffer.wrap(badTable);
    w.putInt(BlockFormat.HEADER_LENGTH + 4, 3);
    w.putInt(BlockFormat.CRC, Checksums.crc32c(badTable, 4, badTable.length - 4));
    assertThatThrownBy(() -> roundTrip(ByteBuffer.wrap(badTable)))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("passes its checksum but offset table entry 1");
    assertThatThrownBy(() -> roundTrip(ByteBuffer.wrap(new byte[200])))
        .isInstanceOf(CorruptionException.class);
  }

  @Test
  void readerNeedsASecondReadOnlyForOversizedBlocks() throws IOException {
    BlockBuilder b = new BlockBuilder();
    byte[] big = new byte[100_000];
    new Random(5).nextBytes(big);
    b.add(9, 9, 9, BlockFormat.OP_PUT, big);
    ByteBuffer block = b.finish();
    Path f = dir.resolve("big");
    Files.write(f, new byte[0]);
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      ch.write(block);
    }
    try (FileChannel ch = FileChannel.open(f)) {
      DecodedBlock d = new DecodedBlock();
      BlockReader r = new BlockReader(4096);
      r.read(ch, f, 0, ch.size(), d);
      assertThat(d.body(0)).isEqualTo(big);
      assertThatThrownBy(() -> r.read(ch, f, 0, ch.size() - 1, d))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("runs past the end");
    }
  }
}
