package io.docstore.index.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestTest {

  @TempDir Path dir;

  @Test
  void encodeDecodeAndPublishSurvivesCrashAsOldOrNew() throws Exception {
    Manifest a =
        new Manifest(10, 4, List.of(new Manifest.TableRef(9, 100), new Manifest.TableRef(3, 800)));
    assertThat(Manifest.decode(ByteBuffer.wrap(a.encode()), dir)).isEqualTo(a);
    assertThat(Manifest.read(FileSystem.real(), dir)).isNull();
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    a.publish(fs, dir);
    Manifest b = new Manifest(11, 9, List.of(new Manifest.TableRef(10, 900)));
    fs.failAfter(FaultInjectingFileSystem.Op.SYNC_DIR, 1);
    try {
      b.publish(fs, dir);
    } catch (java.io.IOException expected) {
      // the final directory fsync failed: the rename is not durable
    }
    fs.crash();
    assertThat(Manifest.read(fs, dir)).isEqualTo(a);
    b.publish(fs, dir);
    fs.crash();
    assertThat(Manifest.read(fs, dir)).isEqualTo(b);
  }
}
