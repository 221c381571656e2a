package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AtomicFiles#replace}: a file written in full under a temp name, never forced by its
 * writer, replaces its target durably (a crash right after the call keeps the new content), and
 * until the call the target is the old one.
 */
class AtomicFilesReplaceTest {

  @TempDir Path dir;
  final FaultInjectingFileSystem fs = new FaultInjectingFileSystem();

  private Path written(String name, int length, int value) throws IOException {
    Path p = dir.resolve(name);
    byte[] b = new byte[length];
    Arrays.fill(b, (byte) value);
    try (WritableFile w = fs.create(p)) {
      w.write(ByteBuffer.wrap(b)); // not forced: replace must do it
    }
    return p;
  }

  @Test
  void theNewContentSurvivesACrashRightAfterTheReplace() throws IOException {
    Path target = dir.resolve("seg-0000000003.sealed");
    AtomicFiles.publish(fs, target, new byte[] {1, 1, 1});
    Path temp = written(".repair-seg-0000000003.sealed.tmp", 70_000, 9);

    AtomicFiles.replace(fs, temp, target);
    fs.crash();

    byte[] after = Files.readAllBytes(target);
    assertThat(after).hasSize(70_000);
    assertThat(after[0]).isEqualTo((byte) 9);
    assertThat(after[69_999]).isEqualTo((byte) 9);
    assertThat(fs.list(dir)).containsExactly(target);
  }

  @Test
  void aCrashBeforeTheReplaceKeepsTheOldTarget() throws IOException {
    Path target = dir.resolve("seg-0000000003.sealed");
    AtomicFiles.publish(fs, target, new byte[] {1, 1, 1});
    written(".repair-seg-0000000003.sealed.tmp", 70_000, 9);

    fs.crash();

    assertThat(Files.readAllBytes(target)).containsExactly(1, 1, 1);
  }

  @Test
  void aTempFileInAnotherDirectoryIsRefused() throws IOException {
    Files.createDirectories(dir.resolve("other"));
    Path temp = dir.resolve("other").resolve("x.tmp");
    Files.write(temp, new byte[] {1});
    assertThatThrownBy(() -> AtomicFiles.replace(fs, temp, dir.resolve("target")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
