package io.docstore.service.store;

import java.nio.charset.StandardCharsets;

/**
 * Byte layout of the index checkpoint file {@code index.checkpoint} (spec: {@code
 * docs/formats/index-checkpoint.md}). All integers big-endian.
 *
 * <pre>
 * magic           4 bytes  "DSIC"
 * name length     1 byte   16
 * name           16 bytes  "index-checkpoint" (ASCII)
 * version         2 bytes  1
 * indexed through 8 bytes  highest queue sequence whose record is durable in the index (0 = none)
 * written at      8 bytes  epoch millis when the checkpoint was published (diagnostics only)
 * footer crc      4 bytes  masked CRC32C of every preceding byte
 * </pre>
 */
public final class CheckpointFormat {

  private CheckpointFormat() {}

  public static final String FILE_NAME = "index.checkpoint";
  public static final byte[] MAGIC = {'D', 'S', 'I', 'C'};
  public static final byte[] NAME = "index-checkpoint".getBytes(StandardCharsets.US_ASCII);
  public static final int VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int NAME_LENGTH_OFFSET = MAGIC_OFFSET + 4;
  public static final int NAME_OFFSET = NAME_LENGTH_OFFSET + 1;
  public static final int VERSION_OFFSET = NAME_OFFSET + 16;
  public static final int INDEXED_THROUGH_OFFSET = VERSION_OFFSET + 2;
  public static final int WRITTEN_AT_OFFSET = INDEXED_THROUGH_OFFSET + 8;
  public static final int CRC_OFFSET = WRITTEN_AT_OFFSET + 8;
  public static final int LENGTH = CRC_OFFSET + 4;
}
