package io.docstore.client;

import java.nio.charset.StandardCharsets;

/**
 * The key of a document's Kafka record and the partition it lands in (docs/formats/kafka-
 * messages.md): the key is the document ID as its canonical decimal ASCII string (digits only, no
 * sign, no leading zero except in "0"); the partition is what Kafka's default partitioner gives a
 * keyed record, {@code (murmur2(key) & 0x7fffffff) % partitions}. Needs no Kafka classes, so
 * routing works without {@code kafka-clients} on the class path. Thread-safe (stateless).
 */
public final class KafkaKeys {

  /** The seed of Kafka's murmur2. */
  private static final int SEED = 0x9747b28c;

  private static final int M = 0x5bd1e995;

  private KafkaKeys() {}

  /** The record key of document {@code id}: {@code Long.toString(id)} in ASCII. */
  public static byte[] encode(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("document IDs are non-negative, got " + id);
    }
    return Long.toString(id).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * The document ID a record key names.
   *
   * @throws IllegalArgumentException when the key is not a canonical ID (null, empty, a character
   *     other than a digit, a leading zero, or above {@link Long#MAX_VALUE}), with the reason
   */
  public static long decode(byte[] key) {
    if (key == null || key.length == 0) {
      throw new IllegalArgumentException(key == null ? "no key" : "empty key");
    }
    if (key.length > 19) {
      throw new IllegalArgumentException("key of " + key.length + " bytes: at most 19 digits");
    }
    if (key[0] == '0' && key.length > 1) {
      throw new IllegalArgumentException("key with a leading zero");
    }
    long v = 0;
    for (byte b : key) {
      if (b < '0' || b > '9') {
        throw new IllegalArgumentException(
            "key with a byte other than a digit: "
                + (b & 0xff)
                + (key.length == Long.BYTES
                    ? " (8 bytes: a long as Kafka's LongSerializer writes it? The key is the ID in"
                        + " decimal ASCII, Long.toString(id), as StringSerializer writes it)"
                    : ""));
      }
      v = v * 10 + (b - '0');
      if (v < 0) {
        throw new IllegalArgumentException("key above " + Long.MAX_VALUE);
      }
    }
    return v;
  }

  /**
   * The partition, of {@code partitions}, that Kafka's default partitioner gives the record of
   * document {@code id}: where a producer without a partitioner of its own sends it, and so the
   * shard that serves it.
   */
  public static int partitionFor(long id, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
    }
    if (id < 0) {
      throw new IllegalArgumentException("document IDs are non-negative, got " + id);
    }
    // The key's bytes (encode(id)) written into a per-thread buffer, not allocated: servers and
    // clients route every ID of every read through here.
    byte[] digits = DIGITS.get();
    int from = digits.length;
    long v = id;
    do {
      digits[--from] = (byte) ('0' + v % 10);
      v /= 10;
    } while (v != 0);
    return (murmur2(digits, from, digits.length - from) & 0x7fffffff) % partitions;
  }

  /** Room for the decimal digits of any non-negative long. */
  private static final ThreadLocal<byte[]> DIGITS = ThreadLocal.withInitial(() -> new byte[19]);

  /** MurmurHash2 (32 bits, little-endian words) with Kafka's seed. */
  static int murmur2(byte[] data) {
    return murmur2(data, 0, data.length);
  }

  private static int murmur2(byte[] data, int offset, int length) {
    int h = SEED ^ length;
    int words = length / 4;
    for (int i = 0; i < words; i++) {
      int j = offset + i * 4;
      int k =
          (data[j] & 0xff)
              | (data[j + 1] & 0xff) << 8
              | (data[j + 2] & 0xff) << 16
              | (data[j + 3] & 0xff) << 24;
      k *= M;
      k ^= k >>> 24;
      k *= M;
      h *= M;
      h ^= k;
    }
    int tail = offset + words * 4;
    int rest = length - words * 4;
    if (rest >= 3) {
      h ^= (data[tail + 2] & 0xff) << 16;
    }
    if (rest >= 2) {
      h ^= (data[tail + 1] & 0xff) << 8;
    }
    if (rest >= 1) {
      h ^= data[tail] & 0xff;
      h *= M;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h;
  }
}
