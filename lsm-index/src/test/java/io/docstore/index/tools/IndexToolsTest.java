package io.docstore.index.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.index.file.FileNames;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** IndexDump and IndexVerifier over a real index directory. */
class IndexToolsTest {

  @TempDir Path dir;

  @Test
  void dumpsEveryFileKindAndVerifiesAHealthyIndex() throws Exception {
    try (LsmIndex index =
        LsmIndex.open(dir, IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      for (long i = 0; i < 300; i++) {
        index.put(i, i + 1);
      }
      index.delete(7);
      index.flush();
      index.put(1000, 5);
    }
    assertThat(IndexVerifier.verify(FileSystem.real(), dir)).isEmpty();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files =
          s.filter(
                  p ->
                      FileNames.parse(p) != null
                          || p.getFileName().toString().equals(FileNames.MANIFEST))
              .sorted()
              .toList();
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(4);
    StringBuilder all = new StringBuilder();
    for (Path f : files) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      IndexDump.dump(FileSystem.real(), f, new PrintStream(bytes, true, StandardCharsets.UTF_8), 5);
      all.append(bytes.toString(StandardCharsets.UTF_8));
    }
    assertThat(all.toString())
        .contains(
            "table ",
            "entries=299",
            "tombstones=0",
            "bloom ",
            "format IDXBLOOM v2",
            "blockBytes=64",
            "probes=7",
            "bitsPerKey=",
            "page 0 fill=",
            "blockFill=",
            "wal ",
            "1000 -> 5",
            "manifest ",
            "  0 -> 1",
            "... 294 more");
  }

  @Test
  void dumpShowsSyncMarksAndVerifyReportsDamageAMarkClaims() throws Exception {
    try (LsmIndex index =
        LsmIndex.open(dir, IndexOptions.builder().syncPolicy(SyncPolicy.ALWAYS).build())) {
      for (long i = 1; i <= 3; i++) {
        index.put(i, i * 10);
      }
    }
    Path wal;
    try (Stream<Path> s = Files.list(dir)) {
      wal =
          s.filter(
                  p -> {
                    FileNames.Parsed n = FileNames.parse(p);
                    return n != null && n.kind() == FileNames.Kind.WAL;
                  })
              .max(Path::compareTo)
              .orElseThrow();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    IndexDump.dump(
        FileSystem.real(), wal, new PrintStream(bytes, true, StandardCharsets.UTF_8), 100);
    // put 1 (32..56), mark, put 2 (72..96), mark, put 3 (112..136), the final mark of close.
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .contains(
            "format IDXWAL v2",
            "  1 -> 10",
            "  @56 sync mark: bytes before 56 fsynced",
            "  @96 sync mark: bytes before 96 fsynced",
            "  @136 sync mark: bytes before 136 fsynced",
            "entries=3 marks=3 validBytes=152");
    assertThat(IndexVerifier.verify(FileSystem.real(), dir)).isEmpty();
    byte[] b = Files.readAllBytes(wal);
    b[72 + 8] ^= 1; // the id of put 2, claimed by the marks after it
    Files.write(wal, b);
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.file()).isEqualTo(wal);
              assertThat(p.offset()).isEqualTo(72);
              assertThat(p.message()).contains("had been fsynced");
            });
  }

  @Test
  void verifierReportsMissingFiles() throws Exception {
    try (LsmIndex index =
        LsmIndex.open(dir, IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      index.put(1, 1);
      index.flush();
    }
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        FileNames.Parsed n = FileNames.parse(p);
        if (n != null && n.kind() == FileNames.Kind.BLOOM) {
          Files.delete(p);
        }
      }
    }
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("missing"));
  }
}
