package io.docstore.index.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** WalWriter and WalReader together: round trip, durability per policy, torn-tail handling. */
class WalTest {

  @TempDir Path dir;

  private static List<long[]> replay(FileSystem fs, Path p, boolean newest) throws Exception {
    List<long[]> out = new ArrayList<>();
    WalReader.replay(fs, p, newest, (id, v) -> out.add(new long[] {id, v}));
    return out;
  }

  @Test
  void roundTripIncludingBatchesLargerThanTheBuffer() throws Exception {
    Path p = dir.resolve("0000000001.wal");
    long[] ids = new long[WalFormat.MAX_COUNT];
    long[] vals = new long[WalFormat.MAX_COUNT];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
      vals[i] = i * 2L;
    }
    try (WalWriter w = WalWriter.create(FileSystem.real(), p, 1, SyncPolicy.ALWAYS, n -> {})) {
      w.awaitDurable(w.append(5, 50));
      w.awaitDurable(w.append(ids, vals, 0, ids.length));
      w.append(6, -2);
      w.sync();
    }
    List<long[]> got = replay(FileSystem.real(), p, false);
    assertThat(got).hasSize(2 + WalFormat.MAX_COUNT);
    assertThat(got.get(0)).containsExactly(5, 50);
    assertThat(got.get(got.size() - 1)).containsExactly(6, -2);
  }

  @Test
  void alwaysIsDurableOnReturnAndNoneIsNot() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Path a = dir.resolve("0000000001.wal");
    Path n = dir.resolve("0000000002.wal");
    WalWriter always = WalWriter.create(fs, a, 1, SyncPolicy.ALWAYS, x -> {});
    WalWriter none = WalWriter.create(fs, n, 2, SyncPolicy.NONE, x -> {});
    always.awaitDurable(always.append(1, 1));
    none.awaitDurable(none.append(2, 2));
    none.drain();
    fs.crash();
    assertThat(replay(fs, a, true)).hasSize(1);
    assertThat(replay(fs, n, true)).isEmpty();
  }

  @Test
  void tornTailIsReportedInNewestAndCorruptionInOlder() throws Exception {
    Path p = dir.resolve("0000000001.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), p, 1, SyncPolicy.NONE, n -> {})) {
      w.append(1, 1);
      w.append(2, 2);
    }
    byte[] b = Files.readAllBytes(p);
    Files.write(p, java.util.Arrays.copyOf(b, b.length + 10));
    WalReader.Result r = WalReader.replay(FileSystem.real(), p, true, (id, v) -> {});
    assertThat(r.entries()).isEqualTo(2);
    assertThat(r.droppedBytes()).isEqualTo(10);
    assertThat(r.validBytes()).isEqualTo(b.length);
    assertThatThrownBy(() -> replay(FileSystem.real(), p, false))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("offset " + b.length);
    Files.write(p, new byte[10]);
    assertThat(WalReader.replay(FileSystem.real(), p, true, (id, v) -> {}).droppedBytes())
        .isEqualTo(10);
  }

  /** Bytes of a single-entry record. */
  private static final int SINGLE = WalFormat.RECORD_HEADER + WalFormat.ENTRY_SIZE;

  @Test
  void withoutAMarkADamagedRecordFollowedByValidOnesIsATornTailWrittenBackOutOfOrder()
      throws Exception {
    Path p = dir.resolve("0000000001.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), p, 1, SyncPolicy.NONE, n -> {})) {
      w.append(1, 1);
      w.append(2, 2);
      w.append(3, 3);
    }
    byte[] b = Files.readAllBytes(p);
    int second = WalFormat.HEADER_SIZE + SINGLE;
    b[second + WalFormat.ENTRIES_OFFSET] ^= 0x10; // a bit of the second record's id
    Files.write(p, b);
    // Nothing was ever forced (policy none, no sync): no mark claims the second record, so the
    // third, which verifies, can only have reached the disk before it.
    WalReader.Result r = WalReader.replay(FileSystem.real(), p, true, (id, v) -> {});
    assertThat(r.entries()).isEqualTo(1);
    assertThat(r.validBytes()).isEqualTo(second);
    assertThat(r.droppedBytes()).isEqualTo(2 * SINGLE);
    assertThat(r.laterRecordsVerify()).isTrue();
    assertThat(r.marks()).isZero();
    // The same damage in the last record is a torn tail too, with nothing verifying after it.
    int third = second + SINGLE;
    b[second + WalFormat.ENTRIES_OFFSET] ^= 0x10;
    b[third + WalFormat.ENTRIES_OFFSET] ^= 0x10;
    Files.write(p, b);
    r = WalReader.replay(FileSystem.real(), p, true, (id, v) -> {});
    assertThat(r.entries()).isEqualTo(2);
    assertThat(r.validBytes()).isEqualTo(third);
    assertThat(r.laterRecordsVerify()).isFalse();
    // In an older WAL any damage is corruption.
    assertThatThrownBy(() -> replay(FileSystem.real(), p, false))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("offset " + third);
  }

  @Test
  void aDamagedRecordBeforeWhatALaterMarkClaimsIsCorruption() throws Exception {
    Path p = dir.resolve("0000000001.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), p, 1, SyncPolicy.ALWAYS, n -> {})) {
      for (long id = 1; id <= 4; id++) {
        w.awaitDurable(w.append(id, id));
      }
    }
    // record 1, then (mark, record) for 2..4, then the final mark of close.
    int second = WalFormat.HEADER_SIZE + SINGLE + WalFormat.MARK_SIZE;
    byte[] good = Files.readAllBytes(p);
    assertThat(good).hasSize(WalFormat.HEADER_SIZE + 4 * SINGLE + 4 * WalFormat.MARK_SIZE);
    byte[] b = good.clone();
    b[second + WalFormat.ENTRIES_OFFSET] ^= 0x10; // a bit of record 2's id
    Files.write(p, b);
    assertThatThrownBy(() -> replay(FileSystem.real(), p, true))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(p + " at offset " + second)
        .hasMessageContaining("had been fsynced");
    // A damaged count sends the reader nowhere near the next record (17 entries announced), yet
    // the marks after it still say the record had been fsynced.
    b = good.clone();
    b[second + WalFormat.COUNT_OFFSET] ^= 0x10;
    Files.write(p, b);
    assertThatThrownBy(() -> replay(FileSystem.real(), p, true))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(p + " at offset " + second);
    // A run of zeros (a lost sector) over records the marks after it claim.
    Path q = dir.resolve("0000000002.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), q, 2, SyncPolicy.ALWAYS, x -> {})) {
      for (long id = 1; id <= 200; id++) {
        w.awaitDurable(w.append(id, id));
      }
    }
    b = Files.readAllBytes(q);
    java.util.Arrays.fill(b, 1024, 1536, (byte) 0);
    Files.write(q, b);
    assertThatThrownBy(() -> replay(FileSystem.real(), q, true))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(q.toString())
        .hasMessageContaining("had been fsynced");
  }

  @Test
  void marksFollowForcesAndClaimWhatTheyCovered() throws Exception {
    List<long[]> marks = new ArrayList<>();
    WalReader.Sink sink =
        new WalReader.Sink() {
          @Override
          public void accept(long id, long value) {}

          @Override
          public void mark(long offset, long syncedEnd) {
            marks.add(new long[] {offset, syncedEnd});
          }
        };
    // none without sync: never forced, no mark, not even at close.
    Path none = dir.resolve("0000000001.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), none, 1, SyncPolicy.NONE, n -> {})) {
      w.append(1, 1);
      w.append(2, 2);
    }
    assertThat(WalReader.replay(FileSystem.real(), none, true, sink).marks()).isZero();
    // none with an explicit sync: one mark before the next record, one at close for the last sync.
    Path synced = dir.resolve("0000000002.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), synced, 2, SyncPolicy.NONE, n -> {})) {
      w.append(1, 1);
      w.sync();
      w.sync(); // nothing new: no second mark
      w.append(2, 2);
      w.append(3, 3);
      w.sync();
    }
    int h = WalFormat.HEADER_SIZE;
    int m = WalFormat.MARK_SIZE;
    WalReader.Result r = WalReader.replay(FileSystem.real(), synced, true, sink);
    assertThat(r.entries()).isEqualTo(3);
    assertThat(marks)
        .containsExactly(
            new long[] {h + SINGLE, h + SINGLE},
            new long[] {h + 3L * SINGLE + m, h + 3L * SINGLE + m});
    assertThat(r.validBytes()).isEqualTo(h + 3L * SINGLE + 2L * m);
    // always, a batch larger than the buffer written straight to the file after its mark.
    marks.clear();
    Path always = dir.resolve("0000000003.wal");
    long[] ids = new long[WalFormat.MAX_COUNT];
    long[] vals = new long[ids.length];
    WalWriter w = WalWriter.create(FileSystem.real(), always, 3, SyncPolicy.ALWAYS, n -> {});
    w.awaitDurable(w.append(1, 1));
    w.awaitDurable(w.append(ids, vals, 0, ids.length));
    w.finish(); // closes a WAL a newer one follows: no final mark
    r = WalReader.replay(FileSystem.real(), always, false, sink);
    assertThat(r.entries()).isEqualTo(1 + WalFormat.MAX_COUNT);
    assertThat(marks).containsExactly(new long[] {h + SINGLE, h + SINGLE});
  }

  @Test
  void aVersionOneWalKeepsTheVersionOneRule() throws Exception {
    byte[] b;
    try (var in = WalTest.class.getResourceAsStream("/golden/v1/0000000003.wal")) {
      b = in.readAllBytes();
    }
    Path p = dir.resolve("0000000003.wal");
    Files.write(p, b);
    assertThat(replay(FileSystem.real(), p, false)).hasSize(5);
    // No marks in version 1: a whole valid record right after a damaged one is corruption.
    int first = WalFormat.HEADER_SIZE;
    b[first + WalFormat.ENTRIES_OFFSET] ^= 0x10;
    Files.write(p, b);
    assertThatThrownBy(() -> replay(FileSystem.real(), p, true))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("offset " + first);
    // A count of 0 is impossible there, not a mark.
    b[first + WalFormat.ENTRIES_OFFSET] ^= 0x10;
    int last = b.length - WalFormat.RECORD_HEADER - 3 * WalFormat.ENTRY_SIZE;
    java.util.Arrays.fill(b, last, b.length, (byte) 0);
    Files.write(p, b);
    WalReader.Result r = WalReader.replay(FileSystem.real(), p, true, (id, v) -> {});
    assertThat(r.version()).isEqualTo(1);
    assertThat(r.entries()).isEqualTo(2);
    assertThat(r.dropReason()).contains("impossible entry count 0");
  }
}
