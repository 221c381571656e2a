package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fake {@code /proc} and {@code /sys/fs/cgroup} trees under a temp dir, one per layout. */
class MemoryLimitTest {

  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;

  @TempDir Path root;

  private void write(String path, String content) throws IOException {
    Path p = root.resolve(path);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  /** Writes {@code files} (path, content, path, content, ...) and the RAM, then reads the limit. */
  private MemoryLimit detect(long ram, String... files) throws IOException {
    write("proc/meminfo", "MemTotal:       " + (ram >> 10) + " kB\nMemFree:         1024 kB\n");
    for (int i = 0; i < files.length; i += 2) {
      write(files[i], files[i + 1]);
    }
    return MemoryLimit.detect(root);
  }

  @Test
  void cgroupV2LimitOfTheProcesssOwnGroup() throws IOException {
    MemoryLimit m =
        detect(
            24 * GIB,
            "proc/self/cgroup",
            "0::/box.slice/app\n",
            "sys/fs/cgroup/box.slice/app/memory.max",
            (512 * MIB) + "\n");
    assertThat(m.bytes()).isEqualTo(512 * MIB);
    assertThat(m.describe()).isEqualTo("cgroup v2 limit 512 MiB");
  }

  @Test
  void cgroupV2ParentsLimitBindsItsChildren() throws IOException {
    assertThat(
            detect(
                    24 * GIB,
                    "proc/self/cgroup",
                    "0::/box.slice/app\n",
                    "sys/fs/cgroup/box.slice/app/memory.max",
                    "max\n",
                    "sys/fs/cgroup/box.slice/memory.max",
                    GIB + "\n")
                .describe())
        .isEqualTo("cgroup v2 limit 1 GiB");
  }

  @Test
  void cgroupV2WithoutALimitIsTheRam() throws IOException {
    MemoryLimit m =
        detect(
            24 * GIB,
            "proc/self/cgroup",
            "0::/user.slice\n",
            "sys/fs/cgroup/user.slice/memory.max",
            "max\n",
            "sys/fs/cgroup/cgroup.controllers",
            "cpu memory\n");
    assertThat(m.bytes()).isEqualTo(24 * GIB);
    assertThat(m.describe()).isEqualTo("RAM 24 GiB");
  }

  @Test
  void aContainersOwnLimitAtTheRootOfWhatItSees() throws IOException {
    assertThat(
            detect(
                    24 * GIB,
                    "proc/self/cgroup",
                    "0::/\n",
                    "sys/fs/cgroup/memory.max",
                    (768 * MIB) + "\n")
                .describe())
        .isEqualTo("cgroup v2 limit 768 MiB");
  }

  @Test
  void cgroupV1MemoryController() throws IOException {
    MemoryLimit m =
        detect(
            8 * GIB,
            "proc/self/cgroup",
            "5:cpu,cpuacct:/\n4:memory:/docker/abc\n0::/\n",
            "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
            (256 * MIB) + "\n",
            "sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n");
    assertThat(m.bytes()).isEqualTo(256 * MIB);
    assertThat(m.describe()).isEqualTo("cgroup v1 limit 256 MiB");
  }

  @Test
  void cgroupV1UnlimitedIsTheRam() throws IOException {
    assertThat(
            detect(
                    8 * GIB,
                    "proc/self/cgroup",
                    "4:memory:/batch/x\n",
                    "sys/fs/cgroup/memory/batch/x/memory.limit_in_bytes",
                    "9223372036854771712\n",
                    "sys/fs/cgroup/memory/memory.limit_in_bytes",
                    "9223372036854771712\n")
                .describe())
        .isEqualTo("RAM 8 GiB");
  }

  @Test
  void cgroupV1PathFromTheHostNotMountedHereWalksUpToTheContainersRoot() throws IOException {
    assertThat(
            detect(
                    8 * GIB,
                    "proc/self/cgroup",
                    "4:memory:/docker/abc\n",
                    "sys/fs/cgroup/memory/memory.limit_in_bytes",
                    (512 * MIB) + "\n")
                .describe())
        .isEqualTo("cgroup v1 limit 512 MiB");
  }

  @Test
  void aLimitAboveTheRamIsTheRam() throws IOException {
    assertThat(
            detect(
                    4 * GIB,
                    "proc/self/cgroup",
                    "0::/big\n",
                    "sys/fs/cgroup/big/memory.max",
                    (64 * GIB) + "\n")
                .describe())
        .isEqualTo("RAM 4 GiB");
  }

  @Test
  void unreadableLimitsAreNone() throws IOException {
    assertThat(
            detect(
                    2 * GIB,
                    "proc/self/cgroup",
                    "0::/../../etc\n",
                    "sys/fs/cgroup/memory.max",
                    "lots\n")
                .describe())
        .isEqualTo("RAM 2 GiB");
  }

  @Test
  void noProcOrSysAtAllFallsBackToWhatTheJvmReports() {
    MemoryLimit m = MemoryLimit.detect(root);
    assertThat(m.source()).isEqualTo("JVM total memory");
    assertThat(m.bytes()).isPositive();
    assertThat(m.maxHeapBytes()).isEqualTo(Runtime.getRuntime().maxMemory());
    assertThat(m.maxDirectBytes()).isPositive();
  }

  @Test
  void ramWithoutCgroupFiles() throws IOException {
    write("proc/meminfo", "MemTotal:        8912896 kB\n");
    assertThat(MemoryLimit.detect(root).describe()).isEqualTo("RAM 8.5 GiB");
  }

  @Test
  void thisProcessHasALimitAndSharesAreThreeQuarters() {
    assertThat(MemoryLimit.detect().bytes()).isPositive();
    assertThat(MemoryLimit.detect()).isSameAs(MemoryLimit.detect());
    assertThat(MemoryLimit.cacheShare(128 * MIB)).isEqualTo(96 * MIB);
    assertThat(MemoryLimit.size(96 * 1024)).isEqualTo("96 KiB");
    assertThat(MemoryLimit.size(1536 * MIB)).isEqualTo("1.5 GiB");
    assertThatThrownBy(() -> new MemoryLimit(0, "x", 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
