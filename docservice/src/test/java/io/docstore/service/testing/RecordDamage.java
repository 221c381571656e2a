package io.docstore.service.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** Real damage to a stored record, for tests of what readers and tools make of it. */
public final class RecordDamage {

  private RecordDamage() {}

  /**
   * Flips the last byte of {@code id}'s 8 big-endian bytes where they first occur in a segment of
   * {@code queue} whose name ends with {@code suffix} ("" for any): the record's own ID, when the
   * ID was chosen so that its bytes occur nowhere else.
   */
  public static void flipInsideId(Path queue, long id, String suffix) throws IOException {
    byte[] pattern = ByteBuffer.allocate(8).putLong(id).array();
    List<Path> segments;
    try (var files = Files.list(queue)) {
      segments =
          files
              .filter(p -> p.getFileName().toString().startsWith("seg-"))
              .filter(p -> p.getFileName().toString().endsWith(suffix))
              .sorted()
              .toList();
    }
    for (Path seg : segments) {
      byte[] bytes = Files.readAllBytes(seg);
      for (int i = 0; i + 8 <= bytes.length; i++) {
        if (Arrays.equals(bytes, i, i + 8, pattern, 0, 8)) {
          try (RandomAccessFile raf = new RandomAccessFile(seg.toFile(), "rw")) {
            raf.seek(i + 7);
            raf.write(bytes[i + 7] ^ 0x01);
          }
          return;
        }
      }
    }
    throw new AssertionError("id " + id + " not found in " + segments);
  }
}
