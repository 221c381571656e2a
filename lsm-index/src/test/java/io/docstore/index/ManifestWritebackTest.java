package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.file.FileNames;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.tools.IndexVerifier;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FaultInjectingFileSystem.Writeback;
import io.docstore.io.FileSystem;
import io.docstore.io.InterceptingFileSystem;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A power loss, with out-of-order writeback of every unforced page, at each file-system operation
 * of a manifest publication (temp file created, written, forced, directory fsynced, renamed over
 * {@code MANIFEST}, directory fsynced; docs/formats/index-manifest.md): the manifest read
 * afterwards is the old or the new one, never damaged, and the index opens with every acknowledged
 * entry. The publication forces the temp file before its name can become durable, so no page of it
 * is ever left to writeback: this holds without anything else in place, and these tests keep it so.
 */
class ManifestWritebackTest {

  @TempDir Path tmp;

  private static final int SEEDS = 8;

  @Test
  void aPublicationInterruptedAtAnyOperationLeavesTheOldOrTheNewManifest() throws Exception {
    Manifest old =
        new Manifest(10, 4, List.of(new Manifest.TableRef(9, 100), new Manifest.TableRef(3, 800)));
    Manifest next = new Manifest(11, 9, List.of(new Manifest.TableRef(10, 900)));
    Path dry = tmp.resolve("dry");
    FileSystem.real().createDirectories(dry);
    Gate counting = new Gate();
    next.publish(counting.wrap(new FaultInjectingFileSystem()), dry);
    List<String> ops = List.copyOf(counting.log);
    assertThat(ops)
        .as("the publication's operations")
        .map(s -> s.substring(0, s.indexOf(' ')))
        .containsExactly("CREATE", "WRITE", "FORCE", "SYNC_DIR", "RENAME", "SYNC_DIR");
    int rename = 4;
    for (int dieAt = 0; dieAt <= ops.size(); dieAt++) {
      for (int seed = 0; seed < SEEDS; seed++) {
        Path dir = tmp.resolve("publish-" + dieAt + "-" + seed);
        FileSystem.real().createDirectories(dir);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        old.publish(fs, dir);
        Gate gate = new Gate();
        gate.dieAfter(dieAt);
        try {
          next.publish(gate.wrap(fs), dir);
        } catch (IOException expected) {
          // the power went at operation dieAt
        }
        fs.crash(Writeback.random(seed));
        Manifest read = Manifest.read(fs, dir);
        String as = "power lost at operation " + dieAt + ", writeback seed " + seed;
        assertThat(read).as(as).isIn(old, next);
        if (dieAt <= rename) {
          assertThat(read).as(as).isEqualTo(old);
        } else if (dieAt == ops.size()) {
          assertThat(read).as(as).isEqualTo(next);
        }
      }
    }
  }

  private static IndexOptions options(FileSystem fs) {
    return IndexOptions.builder()
        .fileSystem(fs)
        .syncPolicy(SyncPolicy.ALWAYS)
        .memTableBytes(1 << 20)
        .bloomMemoryBytes(64 * 1024)
        .build();
  }

  /** Acknowledged entries, then a flush (which publishes a manifest) and a close. */
  private static Map<Long, Long> fill(LsmIndex index) throws IOException {
    Map<Long, Long> acked = new HashMap<>();
    long[] ids = new long[2000];
    long[] values = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = 3L * i;
      values[i] = i + 1;
      acked.put(ids[i], values[i]);
    }
    index.putAll(ids, values, ids.length);
    for (long id = 1; id < 30; id += 3) {
      index.put(id, id);
      acked.put(id, id);
    }
    return acked;
  }

  /**
   * The same at index level: a flush (new WAL, table, bloom file, manifest, obsolete WAL deleted)
   * and the close after it, cut by a power loss at each of their operations, with random writeback.
   * The index opens with the manifest from before the flush or after it, and every acknowledged
   * entry.
   */
  @Test
  void aFlushInterruptedAtAnyOperationOpensWithTheOldOrTheNewManifest() throws Exception {
    Path dry = tmp.resolve("index-dry");
    FaultInjectingFileSystem dryDisk = new FaultInjectingFileSystem();
    Gate counting = new Gate();
    LsmIndex dryIndex = LsmIndex.open(dry, options(counting.wrap(dryDisk)));
    fill(dryIndex);
    Manifest before = Manifest.read(dryDisk, dry);
    counting.dieAfter(Integer.MAX_VALUE); // count from the flush on
    dryIndex.flush();
    dryIndex.close();
    Manifest after = Manifest.read(dryDisk, dry);
    List<String> ops = List.copyOf(counting.log);
    assertThat(after.tables()).hasSize(1);
    assertThat(before.tables()).isEmpty();
    int manifestRename = -1;
    for (int i = 0; i < ops.size(); i++) {
      if (ops.get(i).startsWith("RENAME") && ops.get(i).contains(FileNames.MANIFEST)) {
        manifestRename = i;
      }
    }
    assertThat(manifestRename).as("operations %s", ops).isPositive();
    int runs = 0;
    for (int dieAt = 0; dieAt <= ops.size(); dieAt++) {
      for (int seed = 0; seed < 3; seed++) {
        String as =
            "power lost at "
                + (dieAt < ops.size() ? ops.get(dieAt) : "the end")
                + " (operation "
                + dieAt
                + "), writeback seed "
                + seed;
        Path dir = tmp.resolve("index-" + dieAt + "-" + seed);
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        Gate gate = new Gate();
        LsmIndex index = LsmIndex.open(dir, options(gate.wrap(fs)));
        Map<Long, Long> acked = fill(index);
        gate.dieAfter(dieAt);
        try {
          index.flush();
        } catch (IOException expected) {
          // the power went during the flush
        }
        try {
          index.close();
        } catch (IOException expected) {
          // or during the close
        }
        fs.crash(Writeback.random(seed));
        Manifest read = Manifest.read(fs, dir);
        assertThat(read).as(as).isIn(before, after);
        if (dieAt <= manifestRename) {
          assertThat(read).as(as).isEqualTo(before);
        } else if (dieAt > manifestRename + 1) {
          assertThat(read).as("after the last directory fsync, " + as).isEqualTo(after);
        }
        try (LsmIndex reopened = LsmIndex.open(dir, options(fs))) {
          for (Map.Entry<Long, Long> e : acked.entrySet()) {
            assertThat(reopened.get(e.getKey())).as(as).isEqualTo(e.getValue());
          }
        }
        assertThat(IndexVerifier.verify(fs, dir)).as(as).isEmpty();
        runs++;
      }
    }
    assertThat(runs).isEqualTo(3 * (ops.size() + 1));
  }

  /**
   * A process's view of the disk that logs every mutating operation and, once told to, dies (every
   * mutation fails) after a given number of further ones.
   */
  private static final class Gate {
    private final AtomicInteger left = new AtomicInteger(Integer.MAX_VALUE);
    final List<String> log = Collections.synchronizedList(new ArrayList<>());

    FileSystem wrap(FaultInjectingFileSystem disk) {
      return new InterceptingFileSystem(
          disk,
          (op, p) -> {
            if (left.getAndUpdate(n -> n == Integer.MAX_VALUE ? n : Math.max(0, n - 1)) <= 0) {
              throw new IOException("power lost: " + op + " " + p);
            }
            log.add(op + " " + p.getFileName());
          });
    }

    void dieAfter(int ops) {
      log.clear();
      left.set(ops);
    }
  }
}
