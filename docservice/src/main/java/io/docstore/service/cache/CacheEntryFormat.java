package io.docstore.service.cache;

import io.docstore.io.Checksums;
import java.nio.ByteBuffer;

/**
 * The bytes of one memcached value, version 2 (spec: {@code docs/formats/cache-entry.md}).
 * Big-endian.
 *
 * <pre>
 * value = magic:u8 (0xD5) version:u8 (2) flags:u8 id:i64 sequence:i64 expires:i64 body_len:u32 body crc:u32
 * expires = the version's expiry in epoch milliseconds, 0 if it never expires
 * flags bit 0 = tombstone (body_len is then 0)
 * crc   = masked CRC32C of every byte before it
 * </pre>
 *
 * The ID is stored so that a value under the wrong key (a bug, or a shared memcached used by
 * another store) is never served. Stateless, thread-safe.
 */
final class CacheEntryFormat {

  static final byte MAGIC = (byte) 0xD5;
  static final byte VERSION = 2;
  static final int FLAG_TOMBSTONE = 1;

  static final int MAGIC_OFFSET = 0;
  static final int VERSION_OFFSET = MAGIC_OFFSET + 1;
  static final int FLAGS_OFFSET = VERSION_OFFSET + 1;
  static final int ID_OFFSET = FLAGS_OFFSET + 1;
  static final int SEQUENCE_OFFSET = ID_OFFSET + 8;
  static final int EXPIRES_OFFSET = SEQUENCE_OFFSET + 8;
  static final int BODY_LENGTH_OFFSET = EXPIRES_OFFSET + 8;
  static final int BODY_OFFSET = BODY_LENGTH_OFFSET + 4;
  static final int CRC_SIZE = 4;

  /** Size of a value with an empty body (and of a tombstone). */
  static final int OVERHEAD = BODY_OFFSET + CRC_SIZE;

  private CacheEntryFormat() {}

  /** {@link #encode(long, long, byte[], long)} of a version that never expires. */
  static byte[] encode(long id, long sequence, byte[] body) {
    return encode(id, sequence, body, 0);
  }

  /** Encodes a version ({@code body} non-null) or a tombstone ({@code body} null). */
  static byte[] encode(long id, long sequence, byte[] body, long expiresAtMillis) {
    int len = body == null ? 0 : body.length;
    byte[] out = new byte[OVERHEAD + len];
    ByteBuffer buf = ByteBuffer.wrap(out);
    buf.put(MAGIC).put(VERSION).put((byte) (body == null ? FLAG_TOMBSTONE : 0));
    buf.putLong(id).putLong(sequence).putLong(body == null ? 0 : expiresAtMillis).putInt(len);
    if (body != null) {
      buf.put(body);
    }
    buf.putInt(Checksums.crc32c(out, 0, BODY_OFFSET + len));
    return out;
  }

  /**
   * Decodes a value stored under {@code id}'s key; null if it is damaged, of another format or
   * version, or belongs to another ID (the caller counts that as a miss).
   */
  static CachedDoc decode(long id, byte[] value) {
    if (value == null || value.length < OVERHEAD) {
      return null;
    }
    ByteBuffer buf = ByteBuffer.wrap(value);
    if (buf.get(MAGIC_OFFSET) != MAGIC || buf.get(VERSION_OFFSET) != VERSION) {
      return null;
    }
    int len = buf.getInt(BODY_LENGTH_OFFSET);
    if (len < 0 || len != value.length - OVERHEAD) {
      return null;
    }
    if (buf.getInt(BODY_OFFSET + len) != Checksums.crc32c(value, 0, BODY_OFFSET + len)) {
      return null;
    }
    if (buf.getLong(ID_OFFSET) != id) {
      return null;
    }
    int flags = buf.get(FLAGS_OFFSET);
    long sequence = buf.getLong(SEQUENCE_OFFSET);
    if ((flags & FLAG_TOMBSTONE) != 0) {
      return len == 0 ? new CachedDoc(sequence, null) : null;
    }
    byte[] body = new byte[len];
    System.arraycopy(value, BODY_OFFSET, body, 0, len);
    return new CachedDoc(sequence, body, buf.getLong(EXPIRES_OFFSET));
  }
}
