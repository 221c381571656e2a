package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingFileSystemTest {

  @TempDir Path dir;
  final FaultInjectingFileSystem fs = new FaultInjectingFileSystem();

  private static ByteBuffer bytes(int n, int v) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, (byte) v);
    return ByteBuffer.wrap(b);
  }

  @Test
  void crashDropsUnsyncedBytesButKeepsForcedOnes() throws IOException {
    Path f = dir.resolve("a");
    WritableFile w = fs.create(f);
    fs.syncDirectory(dir);
    w.write(bytes(100, 1));
    w.force();
    w.write(bytes(50, 2));
    fs.crash();
    assertThat(Files.size(f)).isEqualTo(100);
    assertThatThrownBy(() -> w.write(bytes(1, 3))).hasMessageContaining("simulated crash");
  }

  @Test
  void writebackKeepsALaterPageWhileAnEarlierOneIsLost() throws IOException {
    Path f = dir.resolve("w");
    WritableFile w = fs.create(f);
    fs.syncDirectory(dir);
    w.write(bytes(100, 1));
    w.force();
    w.write(bytes(3 * FaultInjectingFileSystem.PAGE, 2)); // pages 0 (from byte 100), 1, 2 and 3
    assertThat(fs.unsyncedPages(f)).isEqualTo(4);
    fs.crash(FaultInjectingFileSystem.Writeback.mask(0b0100, true)); // only page 2 survives
    byte[] after = Files.readAllBytes(f);
    assertThat(after).hasSize(100 + 3 * FaultInjectingFileSystem.PAGE);
    int page = FaultInjectingFileSystem.PAGE;
    for (int i = 0; i < after.length; i++) {
      int expected = i < 100 ? 1 : i >= 2 * page && i < 3 * page ? 2 : 0;
      assertThat(after[i]).as("byte %d", i).isEqualTo((byte) expected);
    }
  }

  @Test
  void writebackWithoutTheLengthEndsAfterTheLastSurvivingPage() throws IOException {
    Path f = dir.resolve("l");
    WritableFile w = fs.create(f);
    fs.syncDirectory(dir);
    w.write(bytes(100, 1));
    w.force();
    w.write(bytes(3 * FaultInjectingFileSystem.PAGE, 2));
    fs.crash(FaultInjectingFileSystem.Writeback.mask(0b0011, false));
    assertThat(Files.size(f)).isEqualTo(2L * FaultInjectingFileSystem.PAGE);
    fs.crash(FaultInjectingFileSystem.Writeback.none());
    assertThat(Files.size(f)).isEqualTo(2L * FaultInjectingFileSystem.PAGE); // nothing unforced
  }

  @Test
  void writebackNeverTouchesForcedBytes() throws IOException {
    Path f = dir.resolve("f");
    WritableFile w = fs.create(f);
    fs.syncDirectory(dir);
    w.write(bytes(5000, 1));
    w.force();
    w.write(bytes(10, 2));
    fs.crash(FaultInjectingFileSystem.Writeback.none());
    byte[] after = Files.readAllBytes(f);
    assertThat(after).hasSize(5000).containsOnly(1);
  }

  @Test
  void crashDeletesFilesWhoseDirectoryWasNeverSynced() throws IOException {
    Path f = dir.resolve("b");
    try (WritableFile w = fs.create(f)) {
      w.write(bytes(10, 1));
      w.force();
    }
    fs.crash();
    assertThat(Files.exists(f)).isFalse();
  }

  @Test
  void crashUndoesRenameNotFollowedByDirectorySync() throws IOException {
    Path target = dir.resolve("MANIFEST");
    Files.write(target, new byte[] {1, 2, 3});
    Path tmp = dir.resolve("tmp");
    try (WritableFile w = fs.create(tmp)) {
      w.write(bytes(5, 9));
      w.force();
    }
    fs.syncDirectory(dir);
    fs.rename(tmp, target);
    fs.crash();
    assertThat(Files.readAllBytes(target)).containsExactly(1, 2, 3);
    assertThat(Files.size(tmp)).isEqualTo(5);
  }

  @Test
  void crashBetweenRenameOfANewFileAndDirectorySyncBringsBackTheOldTarget() throws IOException {
    Path target = dir.resolve("MANIFEST");
    AtomicFiles.publish(fs, target, new byte[] {1});
    Path tmp = dir.resolve("tmp");
    try (WritableFile w = fs.create(tmp)) {
      w.write(bytes(3, 2));
      w.force();
    }
    fs.rename(tmp, target); // the temp file's entry was never synced, nor is the rename
    fs.crash();
    assertThat(Files.readAllBytes(target)).containsExactly(1);
    assertThat(Files.exists(tmp)).isFalse();
  }

  @Test
  void atomicPublishSurvivesCrash() throws IOException {
    Path target = dir.resolve("CURRENT");
    AtomicFiles.publish(fs, target, new byte[] {7});
    fs.crash();
    assertThat(Files.readAllBytes(target)).containsExactly(7);
    assertThat(fs.list(dir)).containsExactly(target);
  }

  @Test
  void spaceLimitTearsTheWriteAndReportsDiskFull() throws IOException {
    fs.setSpaceLimit(10);
    WritableFile w = fs.create(dir.resolve("c"));
    assertThatThrownBy(() -> w.write(bytes(25, 1))).hasMessageContaining("No space left");
    assertThat(w.position()).isEqualTo(10);
    fs.clearSpaceLimit();
    w.write(bytes(5, 1));
    assertThat(w.position()).isEqualTo(15);
    w.close();
  }

  @Test
  void failAfterFailsTheNthOperationAndStaysFailed() throws IOException {
    WritableFile w = fs.create(dir.resolve("d"));
    fs.failAfter(FaultInjectingFileSystem.Op.FORCE, 1);
    w.force();
    assertThatThrownBy(w::force).hasMessageContaining("injected FORCE failure");
    assertThatThrownBy(w::force).hasMessageContaining("injected FORCE failure");
    fs.clearFaults();
    w.force();
    w.close();
  }
}
