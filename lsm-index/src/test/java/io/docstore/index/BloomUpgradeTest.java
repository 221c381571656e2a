package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.bloom.BloomFormat;
import io.docstore.index.file.FileHeader;
import io.docstore.index.file.FileNames;
import io.docstore.index.tools.IndexDump;
import io.docstore.index.tools.IndexVerifier;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upgrade path of the bloom format (docs/formats/bloom.md, "Versions"): an index whose table
 * has a version-1 bloom file opens and answers with it, new flushes write version 2 beside it, and
 * the version-1 file goes only when a merge rewrites its table, with a version-2 filter.
 */
class BloomUpgradeTest {

  @TempDir Path dir;

  private static final String[] GOLDEN_V1 = {
    "0000000002.idx", "0000000002.bloom", "0000000003.wal", "MANIFEST"
  };

  /** Bloom file number -> its header's format version. */
  private Map<Long, Integer> bloomVersions() throws IOException {
    Map<Long, Integer> versions = new TreeMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        FileNames.Parsed n = FileNames.parse(p);
        if (n != null && n.kind() == FileNames.Kind.BLOOM) {
          ByteBuffer head = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
          versions.put(n.number(), head.getInt(FileHeader.VERSION_OFFSET));
        }
      }
    }
    return versions;
  }

  /**
   * What the golden v1 files (table 2 under WAL 3, which is newer) plus {@code written} puts hold.
   */
  private static long expected(long id, long written) {
    if (id >= 1000 && id < 1000 + written) {
      return id * 10;
    }
    return switch ((int) id) {
      case 10 -> 100;
      case 12 -> 120;
      case 13 -> 130;
      case 11, 14 -> LsmIndex.DELETED;
      default ->
          id % 3 == 0 && id >= 3 && id <= 900
              ? (id % 7 == 0 ? LsmIndex.DELETED : id * 1000 + 1)
              : LsmIndex.ABSENT;
    };
  }

  /**
   * Checks every id against {@link #expected}; after a merge into the oldest table deletions read
   * as absent.
   */
  private void checkAll(LsmIndex index, long written, boolean tombstonesDropped)
      throws IOException {
    for (long id = 1; id < 1000 + written + 100; id++) {
      long e = expected(id, written);
      assertThat(index.get(id))
          .as("get(%d)", id)
          .isEqualTo(tombstonesDropped && e == LsmIndex.DELETED ? LsmIndex.ABSENT : e);
    }
  }

  private String dumpBlooms() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.sorted().toList()) {
        FileNames.Parsed n = FileNames.parse(p);
        if (n != null && n.kind() == FileNames.Kind.BLOOM) {
          IndexDump.dump(
              FileSystem.real(), p, new PrintStream(out, true, StandardCharsets.UTF_8), 0);
        }
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void versionOneFilesServeUntilAMergeRewritesThemAsVersionTwo() throws IOException {
    for (String f : GOLDEN_V1) {
      try (InputStream in = getClass().getResourceAsStream("/golden/v1/" + f)) {
        Files.write(dir.resolve(f), in.readAllBytes());
      }
    }
    IndexOptions options = IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build();
    try (LsmIndex index = LsmIndex.open(dir, options)) {
      checkAll(index, 0, false);
      // 600 of the ids 1..900 are absent from the v1 table; its filter (109 bits a key) says no to
      // them.
      assertThat(index.stats().bloomNo())
          .as("no answers of the v1 filter")
          .isGreaterThanOrEqualTo(590);
      // A small flush: too small to absorb the 300-entry table, so it sits beside it.
      for (long id = 1000; id < 1010; id++) {
        index.put(id, id * 10);
      }
      index.flush();
      assertThat(index.indexSizes()).containsExactly(15L, 300L);
      assertThat(bloomVersions())
          .hasSize(2)
          .containsEntry(2L, 1)
          .containsValue(BloomFormat.VERSION);
      checkAll(index, 10, false);
    }
    assertThat(IndexVerifier.verify(FileSystem.real(), dir)).isEmpty();
    assertThat(dumpBlooms())
        .contains(
            "0000000002.bloom: format IDXBLOOM v1 pageBytes=4096 probes=7",
            ".bloom: format IDXBLOOM v2 pageBytes=4096 blockBytes=64 probes=7");
    try (LsmIndex index = LsmIndex.open(dir, options)) {
      checkAll(index, 10, false);
      // A flush large enough to merge both on-disk tables: the v1 file is rewritten as v2.
      for (long id = 1010; id < 1400; id++) {
        index.put(id, id * 10);
      }
      index.flush();
      // 300 + 15 + 390 entries less the 45 tombstones a merge into the oldest table drops.
      assertThat(index.indexSizes()).containsExactly(660L);
      checkAll(index, 400, true);
    }
    // The merged-away tables' files are deleted once no lookup holds them, by close at the latest.
    assertThat(bloomVersions()).hasSize(1).containsValue(BloomFormat.VERSION);
    assertThat(IndexVerifier.verify(FileSystem.real(), dir)).isEmpty();
  }
}
