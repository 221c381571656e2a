package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ThreadPriorityTest {

  @Test
  @EnabledOnOs(OS.LINUX)
  void lowersOnlyTheCallingThread() throws Exception {
    int before = currentNice();
    int target = Math.min(19, before + 7);
    AtomicReference<Object> seen = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              try {
                boolean changed = ThreadPriority.lowerCurrentThread(target);
                seen.set(new int[] {changed ? 1 : 0, currentNice()});
              } catch (Throwable e) {
                seen.set(e);
              }
            });
    t.start();
    t.join();
    assertThat(seen.get()).isInstanceOf(int[].class);
    int[] r = (int[]) seen.get();
    assertThat(r[0]).as("setpriority took effect").isEqualTo(1);
    assertThat(r[1]).as("the background thread's nice value").isEqualTo(target);
    assertThat(currentNice()).as("the caller's own thread is untouched").isEqualTo(before);
  }

  @Test
  void refusesToRaiseThePriority() {
    assertThatThrownBy(() -> ThreadPriority.lowerCurrentThread(-5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ThreadPriority.lowerCurrentThread(20))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ThreadPriority.lowerCurrentThread(0))
        .as("0 is the normal priority: nothing to do")
        .isFalse();
  }

  /**
   * The calling thread's nice value as the kernel reports it ({@code /proc/thread-self/stat}, field
   * 19).
   */
  private static int currentNice() throws java.io.IOException {
    String stat =
        java.nio.file.Files.readString(
            java.nio.file.Path.of("/proc/thread-self/stat"),
            java.nio.charset.StandardCharsets.US_ASCII);
    // Fields after the command name (in parentheses, which may itself hold spaces): state is field
    // 3.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return Integer.parseInt(f[19 - 3]);
  }
}
