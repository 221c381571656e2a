package io.docstore.io;

import static io.docstore.io.MemoryBudgets.AUTO;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The rule as a table: box and JVM limits in, budgets out (MiB throughout). */
class MemoryBudgetsTest {

  private static final long MIB = 1L << 20;

  private static MemoryLimit box(long mib, long heapMib, long directMib) {
    return new MemoryLimit(mib * MIB, "test", heapMib * MIB, directMib * MIB);
  }

  /** box, heap, direct -> page cache, bloom, memtable, document cache. */
  private static final long[][] TABLE = {
    // A container with the JVM's defaults (heap and direct memory a quarter of the box): the
    // off-heap caches share 3/4 of the direct limit, bloom first, then pages, then documents.
    {256, 64, 64, /**/ 32, 8, 8, 8},
    {512, 128, 128, /**/ 64, 16, 16, 16},
    {1024, 256, 256, /**/ 128, 32, 32, 32},
    {2048, 512, 512, /**/ 256, 64, 64, 64},
    {4096, 1024, 1024, /**/ 256, 64, 64, 256},
    {24 * 1024, 6 * 1024, 6 * 1024, /**/ 256, 64, 64, 256},
    // Direct memory to spare (the bench's -Xmx1g in its 512 MiB cgroup): only the box bounds them.
    {512, 1024, 1024, /**/ 64, 16, 16, 64},
    {1024, 1024, 1024, /**/ 128, 32, 32, 128},
    {2048, 2048, 2048, /**/ 256, 64, 64, 256},
    // A big box, a small JVM: the memory table stays within an eighth of the heap, the document
    // cache gets what direct memory has left (none).
    {24 * 1024, 256, 256, /**/ 128, 64, 32, 0},
    {24 * 1024, 64, 64, /**/ 0, 48, 8, 0},
    // Odd sizes round down to whole MiB.
    {500, 125, 125, /**/ 62, 15, 15, 16},
    {64, 16, 16, /**/ 8, 2, 2, 2},
  };

  @Test
  void theTable() {
    for (long[] row : TABLE) {
      MemoryBudgets b = MemoryBudgets.of(box(row[0], row[1], row[2]));
      assertThat(
              new long[] {
                b.pageCacheBytes() / MIB,
                b.bloomMemoryBytes() / MIB,
                b.memTableBytes() / MIB,
                b.documentCacheBytes() / MIB
              })
          .as("box %d MiB, heap %d MiB, direct %d MiB: %s", row[0], row[1], row[2], b)
          .containsExactly(row[3], row[4], row[5], row[6]);
    }
  }

  @Test
  void aSmallBoxLeavesAtLeastHalfOfItToTheJvmAndThePageCache() {
    for (long[] row : TABLE) {
      MemoryBudgets b = MemoryBudgets.of(box(row[0], row[1], row[2]));
      long taken =
          b.pageCacheBytes() + b.bloomMemoryBytes() + b.memTableBytes() + b.documentCacheBytes();
      assertThat(taken).as("box %d MiB", row[0]).isLessThanOrEqualTo(row[0] * MIB / 2);
    }
  }

  @Test
  void givenSizesAreKeptAndLeaveLessRoomForTheRest() {
    MemoryLimit jvm256 = box(24 * 1024, 256, 256); // 192 MiB for the off-heap caches
    MemoryBudgets b = MemoryBudgets.of(jvm256, new MemoryBudgets(32 * MIB, AUTO, AUTO, AUTO), 0);
    assertThat(b).isEqualTo(new MemoryBudgets(32 * MIB, 64 * MIB, 32 * MIB, 96 * MIB));
    b = MemoryBudgets.of(jvm256, new MemoryBudgets(AUTO, AUTO, 4 * MIB, 0), 16 * MIB);
    assertThat(b).isEqualTo(new MemoryBudgets(112 * MIB, 64 * MIB, 4 * MIB, 0));
    // Given sizes over the room are still kept (the service's start check names them); autos get 0.
    b = MemoryBudgets.of(jvm256, new MemoryBudgets(1024 * MIB, AUTO, AUTO, AUTO), 0);
    assertThat(b).isEqualTo(new MemoryBudgets(1024 * MIB, 0, 32 * MIB, 0));
  }

  @Test
  void describesItself() {
    assertThat(MemoryBudgets.of(box(512, 128, 128)))
        .hasToString(
            "index page cache 64 MiB, bloom 16 MiB, memtable 16 MiB, document cache 16 MiB");
    assertThat(MemoryBudgets.forThisProcess().memTableBytes()).isPositive();
    assertThatThrownBy(() -> new MemoryBudgets(-2, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
