package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.docstore.bench.workloads.ChurnSchedule.Event;
import io.docstore.bench.workloads.ChurnSchedule.Kind;
import io.docstore.bench.workloads.ChurnSchedule.Life;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChurnScheduleTest {

  /**
   * Every event before day 90 in time order, each posting's life as {@link ChurnSchedule#life} says
   * (created, its edits in version order, its end last); about the asked-for updates, and about the
   * asked-for live postings through the last 60 days.
   */
  @Test
  void yieldsEachPostingsLifeInTimeOrderAtTheAskedForSizes() {
    long keys = 5_000;
    long updates = 60_000;
    ChurnSchedule s = new ChurnSchedule(keys, updates, 7);
    Map<Long, Integer> versions = new HashMap<>();
    long previous = -1;
    long counted = 0;
    long expiries = 0;
    long live = 0;
    long liveAtDays = 0;
    int samples = 0;
    int nextDay = 31;
    for (Event e; (e = s.next()) != null; ) {
      assertThat(e.timeMs()).isGreaterThanOrEqualTo(previous).isLessThan(ChurnSchedule.END_MS);
      previous = e.timeMs();
      while (nextDay < ChurnSchedule.DAYS && e.timeMs() >= nextDay * ChurnSchedule.DAY_MS) {
        liveAtDays += live;
        samples++;
        nextDay++;
      }
      Life life = s.life(e.posting());
      Integer version = versions.get(e.posting());
      switch (e.kind()) {
        case CREATE -> {
          assertThat(version).isNull();
          assertThat(e.timeMs()).isEqualTo(life.createdMs());
          live++;
        }
        case EDIT -> {
          assertThat(e.version()).isEqualTo(version + 1);
          assertThat(e.timeMs()).isEqualTo(life.editMs()[e.version() - 1]);
        }
        case TAKEDOWN, EXPIRE -> {
          assertThat(e.version()).isEqualTo(version).isEqualTo(life.lastVersion());
          assertThat(e.kind() == Kind.TAKEDOWN).isEqualTo(life.takenDown());
          assertThat(e.timeMs())
              .isEqualTo(life.endMs())
              .isEqualTo(life.takenDown() ? life.endMs() : life.expiresMs());
          live--;
        }
      }
      versions.put(e.posting(), e.kind() == Kind.EDIT ? e.version() : 0);
      if (e.kind() == Kind.EXPIRE) {
        expiries++;
      } else {
        counted++;
      }
    }
    assertThat(versions).hasSize((int) s.postings());
    assertThat((double) counted).isCloseTo(updates, within(updates * 0.02));
    assertThat(expiries).isGreaterThan(s.postings() / 2);
    assertThat((double) liveAtDays / samples).isCloseTo(keys, within(keys * 0.05));
  }

  @Test
  void rejectsUpdatesThatCannotCreateAndTakeDownEveryPosting() {
    assertThatThrownBy(() -> new ChurnSchedule(1000, 3000, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("edits per posting");
    assertThat(new ChurnSchedule(1000, 4000, 1).postings()).isEqualTo(3334);
  }
}
