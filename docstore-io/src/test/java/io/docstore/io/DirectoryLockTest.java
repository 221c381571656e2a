package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryLockTest {

  @TempDir Path dir;

  /** Holds the lock of the directory given as argument until killed. */
  public static final class Holder {
    public static void main(String[] args) throws Exception {
      try (DirectoryLock lock = DirectoryLock.acquire(Path.of(args[0]))) {
        System.out.println("locked");
        System.out.flush();
        Thread.sleep(60_000);
      }
    }
  }

  @Test
  void secondHolderInTheSameProcessIsRefusedUntilRelease() throws Exception {
    DirectoryLock first = DirectoryLock.acquire(dir);
    assertThatThrownBy(() -> DirectoryLock.acquire(dir)).hasMessageContaining("in use");
    first.close();
    DirectoryLock.acquire(dir).close();
  }

  @Test
  void anotherProcessHoldingItIsRefusedAndItsDeathReleasesIt() throws Exception {
    Process p = TestSupport.startJvm(Holder.class, List.of(), dir.toString());
    try {
      BufferedReader out = TestSupport.stdout(p);
      assertThat(out.readLine()).isEqualTo("locked");
      assertThatThrownBy(() -> DirectoryLock.acquire(dir)).hasMessageContaining("in use");
    } finally {
      TestSupport.kill9(p);
    }
    DirectoryLock.acquire(dir).close();
  }
}
