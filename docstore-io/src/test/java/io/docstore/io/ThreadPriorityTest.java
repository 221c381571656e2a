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
    int before = ThreadPriority.currentNice();
    int target = Math.min(19, before + 7);
    AtomicReference<Object> seen = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        boolean changed = ThreadPriority.lowerCurrentThread(target);
        seen.set(new int[] {changed ? 1 : 0, ThreadPriority.currentNice()});
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
    assertThat(ThreadPriority.currentNice()).as("the caller's own thread is untouched").isEqualTo(before);
  }

  @Test
  void refusesToRaiseThePriority() {
    assertThatThrownBy(() -> ThreadPriority.lowerCurrentThread(-5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ThreadPriority.lowerCurrentThread(20)).isInstanceOf(IllegalArgumentException.class);
    assertThat(ThreadPriority.lowerCurrentThread(0)).as("0 is the normal priority: nothing to do").isFalse();
  }
}
