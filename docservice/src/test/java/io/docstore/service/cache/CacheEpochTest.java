package io.docstore.service.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key generation's file: durable, continued after a restart, and replaced when damaged. */
class CacheEpochTest {

  @TempDir Path dir;

  @Test
  void aRenewalIsPublishedAndARestartGoesPastIt() throws IOException {
    CacheEpoch first = CacheEpoch.open(FileSystem.real(), dir);
    assertThat(first.prefix()).as("no key before the first renewal").isNull();
    first.renew();
    first.renew();
    assertThat(first.epoch()).isEqualTo(2);
    assertThat(first.prefix()).isEqualTo("ds2:" + Long.toHexString(first.storeId()) + ".2:");
    assertThat(Files.size(dir.resolve(CacheEpoch.FILE_NAME))).isEqualTo(CacheEpoch.LENGTH);

    CacheEpoch again = CacheEpoch.open(FileSystem.real(), dir);
    assertThat(again.storeId()).isEqualTo(first.storeId());
    again.renew();
    assertThat(again.epoch()).as("never an epoch whose entries may be stale").isEqualTo(3);
  }

  @Test
  void twoDataDirectoriesNeverShareKeys(@TempDir Path other) throws IOException {
    CacheEpoch a = CacheEpoch.open(FileSystem.real(), dir);
    CacheEpoch b = CacheEpoch.open(FileSystem.real(), other);
    a.renew();
    b.renew();
    assertThat(a.prefix()).isNotEqualTo(b.prefix());
  }

  @Test
  void aDamagedFileStartsANewStoreId() throws IOException {
    CacheEpoch first = CacheEpoch.open(FileSystem.real(), dir);
    first.renew();
    Path file = dir.resolve(CacheEpoch.FILE_NAME);
    byte[] bytes = Files.readAllBytes(file);
    bytes[CacheEpoch.EPOCH + 7] ^= 1;
    Files.write(file, bytes);
    CacheEpoch after = CacheEpoch.open(FileSystem.real(), dir);
    assertThat(after.storeId()).isNotEqualTo(first.storeId());
    after.renew();
    assertThat(after.prefix()).isNotEqualTo(first.prefix());
    assertThat(CacheEpoch.open(FileSystem.real(), dir).storeId()).isEqualTo(after.storeId());
  }

  /** The worked example of docs/formats/cache-epoch.md, byte for byte. */
  @Test
  void readsTheSpecsWorkedExample() throws IOException {
    byte[] example =
        java.util.HexFormat.of()
            .parseHex(
                "d0c5cac4646f6373746f72652e636163686565700000000"
                    + "13fa9c2e1d0b4a577000000000000000cb5a92d7d");
    Files.write(dir.resolve(CacheEpoch.FILE_NAME), example);
    CacheEpoch e = CacheEpoch.open(FileSystem.real(), dir);
    assertThat(e.storeId()).isEqualTo(0x3fa9c2e1d0b4a577L);
    assertThat(e.epoch()).isEqualTo(12);
    e.renew();
    assertThat(e.prefix()).isEqualTo("ds2:3fa9c2e1d0b4a577.13:");
  }
}
