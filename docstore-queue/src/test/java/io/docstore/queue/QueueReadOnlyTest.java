package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DocQueue#openReadOnly}: the records a writer's open would keep are all readable, and the
 * directory is left byte for byte as it was (a torn tail not cut, an older segment not sealed, no
 * segment created); the writer's open afterwards does what it always did.
 */
class QueueReadOnlyTest {

  @TempDir Path dir;

  private static final QueueOptions OPTIONS =
      QueueOptions.builder().blockSize(512).segmentSize(8192).syncPolicy(SyncPolicy.NONE).build();

  private static byte[] body(int i) {
    byte[] b = new byte[80 + i % 50];
    new Random(i).nextBytes(b);
    return b;
  }

  private void write(int records) throws IOException {
    try (DocQueue q = DocQueue.open(dir, OPTIONS)) {
      for (int i = 0; i < records; i++) {
        q.writer().append(i, Op.PUT, i, body(i));
      }
    }
  }

  private List<String> snapshot() throws IOException {
    return TestSupport.fileDigests(dir);
  }

  private static void readsAll(DocQueue q, int records) throws IOException {
    assertThat(q.lastSequence()).isEqualTo(records);
    try (QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < records; i++) {
        QueueRecord r = t.poll();
        assertThat(r.sequence()).isEqualTo(i + 1);
        assertThat(r.body()).isEqualTo(body(i));
        assertThat(q.reader().get(r.address()).body()).isEqualTo(body(i));
      }
      assertThat(t.poll()).isNull();
    }
  }

  @Test
  void aTornTailIsReadAroundAndLeftInPlace() throws Exception {
    write(300);
    Path active =
        Files.list(dir).filter(p -> p.toString().endsWith(".active")).findFirst().orElseThrow();
    byte[] garbage = new byte[700];
    new Random(7).nextBytes(garbage);
    Files.write(active, garbage, StandardOpenOption.APPEND);
    List<String> before = snapshot();

    for (int i = 0; i < 2; i++) {
      try (DocQueue q = DocQueue.openReadOnly(dir, OPTIONS)) {
        assertThat(q.readOnly()).isTrue();
        readsAll(q, 300);
        assertThatThrownBy(q::writer).hasMessageContaining("read-only");
      }
    }
    assertThat(snapshot()).as("the directory after read-only opens").isEqualTo(before);

    try (DocQueue q = DocQueue.open(dir, OPTIONS)) {
      readsAll(q, 300);
      assertThat(q.stats().tornTailBytesDropped()).isEqualTo(700);
    }
  }

  @Test
  void anInterruptedSealIsReadButNotFinished() throws Exception {
    write(300);
    // What a crash between writing a footer and renaming leaves: a sealed file under its active
    // name, the last segment.
    Path last =
        Files.list(dir)
            .filter(p -> p.toString().endsWith(".sealed"))
            .sorted()
            .reduce((a, b) -> b)
            .orElseThrow();
    Files.list(dir).filter(p -> p.toString().endsWith(".active")).forEach(this::delete);
    Path asActive = dir.resolve(last.getFileName().toString().replace(".sealed", ".active"));
    Files.move(last, asActive);
    List<String> before = snapshot();
    long records;
    try (DocQueue q = DocQueue.openReadOnly(dir, OPTIONS)) {
      records = q.lastSequence();
      assertThat(records).isPositive();
      readsAll(q, (int) records);
    }
    assertThat(snapshot()).isEqualTo(before);
    try (DocQueue q = DocQueue.open(dir, OPTIONS)) {
      assertThat(q.lastSequence()).isEqualTo(records);
    }
    assertThat(snapshot()).isNotEqualTo(before); // the writer's open finished the seal
  }

  @Test
  void aMissingDirectoryIsNotCreated() {
    Path none = dir.resolve("none");
    assertThatThrownBy(() -> DocQueue.openReadOnly(none, OPTIONS))
        .isInstanceOf(java.io.FileNotFoundException.class);
    assertThat(none).doesNotExist();
  }

  private void delete(Path p) {
    try {
      Files.delete(p);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
