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

  @Test
  void aDamagedRecordFollowedByAValidOneIsCorruptionEvenInTheNewest() throws Exception {
    Path p = dir.resolve("0000000001.wal");
    try (WalWriter w = WalWriter.create(FileSystem.real(), p, 1, SyncPolicy.NONE, n -> {})) {
      w.append(1, 1);
      w.append(2, 2);
      w.append(3, 3);
    }
    byte[] b = Files.readAllBytes(p);
    int second = WalFormat.HEADER_SIZE + WalFormat.RECORD_HEADER + WalFormat.ENTRY_SIZE;
    b[second + WalFormat.ENTRIES_OFFSET] ^= 0x10; // a bit of the second record's id
    Files.write(p, b);
    assertThatThrownBy(() -> replay(FileSystem.real(), p, true))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("offset " + second);
    // The same damage in the last record is a torn tail.
    int third = second + WalFormat.RECORD_HEADER + WalFormat.ENTRY_SIZE;
    b[second + WalFormat.ENTRIES_OFFSET] ^= 0x10;
    b[third + WalFormat.ENTRIES_OFFSET] ^= 0x10;
    Files.write(p, b);
    WalReader.Result r = WalReader.replay(FileSystem.real(), p, true, (id, v) -> {});
    assertThat(r.entries()).isEqualTo(2);
    assertThat(r.validBytes()).isEqualTo(third);
  }
}
