package io.docstore.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SlotTableTest {

  private static final long NO_WAIT = 0;

  @Test
  void takesTheLowestNumberedFreeSlotLevelByLevel() throws Exception {
    SlotTable t = new SlotTable(3, 2);
    for (int s = 0; s < 3; s++) {
      t.setUp(s, true);
    }
    // Numbers: level 0 = 0,1,2 (servers 0,1,2), level 1 = 3,4,5.
    assertThat(t.acquire(-1, NO_WAIT)).isEqualTo(0);
    assertThat(t.acquire(-1, NO_WAIT)).isEqualTo(1);
    assertThat(t.acquire(-1, NO_WAIT)).isEqualTo(2);
    assertThat(t.acquire(-1, NO_WAIT)).isEqualTo(3);
    t.release(1);
    assertThat(t.acquire(-1, NO_WAIT)).isEqualTo(1);
    assertThat(t.serverOf(4)).isEqualTo(1);
  }

  @Test
  void acquireOnTakesOnlyThatServersSlotsAndFailsAtOnceWhenItIsDown() throws Exception {
    SlotTable t = new SlotTable(3, 2);
    assertThat(t.acquireOn(2, TimeUnit.SECONDS.toNanos(5)))
        .as("server 2 down: no wait")
        .isEqualTo(-1);
    for (int s = 0; s < 3; s++) {
      t.setUp(s, true);
    }
    assertThat(t.acquireOn(2, NO_WAIT)).isEqualTo(2);
    assertThat(t.acquireOn(2, NO_WAIT)).isEqualTo(5);
    assertThat(t.acquireOn(2, NO_WAIT)).as("server 2 full").isEqualTo(-1);
    assertThat(t.acquire(-1, NO_WAIT)).as("other servers' slots stay free").isEqualTo(0);
    CompletableFuture<Integer> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return t.acquireOn(2, TimeUnit.SECONDS.toNanos(10));
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    t.release(5);
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(5);
  }

  @Test
  void downServersOfferNoSlotsAndAvoidedServersOnlyAsALastResort() throws Exception {
    SlotTable t = new SlotTable(2, 2);
    assertThat(t.acquire(-1, NO_WAIT)).as("nothing connected").isEqualTo(-1);
    t.setUp(1, true);
    assertThat(t.serverOf(t.acquire(-1, NO_WAIT))).isEqualTo(1);
    t.setUp(0, true);
    assertThat(t.serverOf(t.acquire(0, NO_WAIT))).as("avoid 0 while 1 has room").isEqualTo(1);
    // Server 1 is full now; the only free slots are on the avoided server, and 1 is up: wait.
    assertThat(t.acquire(0, NO_WAIT)).isEqualTo(-1);
    t.setUp(1, false);
    assertThat(t.serverOf(t.acquire(0, NO_WAIT))).as("no other server up").isEqualTo(0);
  }

  @Test
  void waitersWakeWhenASlotFreesOrAServerConnectsAndFailOnClose() throws Exception {
    SlotTable t = new SlotTable(1, 1);
    CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> acquire(t));
    t.setUp(0, true);
    assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo(0);
    CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> acquire(t));
    t.release(0);
    assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo(0);
    CompletableFuture<Integer> third = CompletableFuture.supplyAsync(() -> acquire(t));
    t.close();
    assertThat(third.get(5, TimeUnit.SECONDS)).isEqualTo(-1);
  }

  private static int acquire(SlotTable t) {
    try {
      return t.acquire(-1, TimeUnit.SECONDS.toNanos(10));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
