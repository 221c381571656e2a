package io.docstore.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Record keys and partitions as docs/formats/kafka-messages.md defines them, held against
 * kafka-clients' own default partitioner: a document's records land in the partition {@link
 * DocProducer#partitionFor} names, for any ID and partition count.
 */
class KafkaRoutingTest {

  private static final int[] PARTITION_COUNTS = {1, 3, 12, 64};

  /** 100,000 IDs: every digit count from 1 to 19 (uniform over magnitudes) and the edges. */
  private static List<Long> ids() {
    SplittableRandom rnd = new SplittableRandom(22);
    List<Long> ids = new ArrayList<>(List.of(0L, 1L, 9L, 10L, 99L, 1L << 62, Long.MAX_VALUE));
    while (ids.size() < 100_000) {
      int digits = 1 + rnd.nextInt(19);
      long bound = digits == 19 ? Long.MAX_VALUE : pow10(digits);
      ids.add(rnd.nextLong(bound));
    }
    return ids;
  }

  private static long pow10(int n) {
    long v = 1;
    for (int i = 0; i < n; i++) {
      v *= 10;
    }
    return v;
  }

  @Test
  void partitionForIsKafkasDefaultPartitionerForTheKeyBytes() {
    for (long id : ids()) {
      byte[] key = Long.toString(id).getBytes(StandardCharsets.US_ASCII);
      assertThat(KafkaKeys.encode(id)).isEqualTo(key);
      assertThat(KafkaKeys.murmur2(key)).as("murmur2 of %s", id).isEqualTo(Utils.murmur2(key));
      for (int n : PARTITION_COUNTS) {
        assertThat(DocProducer.partitionFor(id, n))
            .as("id %d over %d partitions", id, n)
            .isEqualTo(BuiltInPartitioner.partitionForKey(key, n))
            .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % n);
      }
    }
  }

  @Test
  void theWorkedExampleOfTheFormat() {
    // docs/formats/kafka-messages.md, "Worked example": id, murmur2, partitions of 3, 12, 64
    long[][] rows = {
      {0L, 0x39e0b3c4L, 2, 8, 4},
      {7L, 0x8b18f973L, 0, 3, 51},
      {12345L, 0xb92afadcL, 2, 8, 28},
      {1700000000123L, 0x650902ccL, 1, 4, 12},
      {Long.MAX_VALUE, 0xb72ed3bdL, 0, 9, 61}
    };
    for (long[] row : rows) {
      assertThat(KafkaKeys.murmur2(KafkaKeys.encode(row[0]))).isEqualTo((int) row[1]);
      assertThat(DocProducer.partitionFor(row[0], 3)).isEqualTo(row[2]);
      assertThat(DocProducer.partitionFor(row[0], 12)).isEqualTo(row[3]);
      assertThat(DocProducer.partitionFor(row[0], 64)).isEqualTo(row[4]);
    }
    assertThat(KafkaKeys.encode(12345)).containsExactly(0x31, 0x32, 0x33, 0x34, 0x35);
  }

  @Test
  void keysOfEveryLengthSpreadOverPartitions() {
    // murmur2's tail (1 to 3 bytes after the last whole word) is hashed for every length
    int[] seen = new int[12];
    for (long id = 0; id < 12_000; id++) {
      seen[DocProducer.partitionFor(id, 12)]++;
    }
    for (int count : seen) {
      assertThat(count).isBetween(800, 1200);
    }
  }

  @Test
  void keysDecodeOnlyWhenCanonical() {
    for (long id : ids().subList(0, 10_000)) {
      assertThat(KafkaKeys.decode(KafkaKeys.encode(id))).isEqualTo(id);
    }
    for (String bad :
        new String[] {
          "",
          "007",
          "00",
          "-1",
          "+1",
          " 1",
          "1 ",
          "1a",
          "1.0",
          "9223372036854775808",
          "18446744073709551616",
          "12345678901234567890"
        }) {
      assertThatThrownBy(() -> KafkaKeys.decode(bad.getBytes(StandardCharsets.US_ASCII)))
          .as("key '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> KafkaKeys.decode(null)).isInstanceOf(IllegalArgumentException.class);
    byte[] longSerializerKey = java.nio.ByteBuffer.allocate(Long.BYTES).putLong(42).array();
    assertThatThrownBy(() -> KafkaKeys.decode(longSerializerKey))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("LongSerializer")
        .hasMessageContaining("decimal ASCII");
    assertThatThrownBy(() -> KafkaKeys.encode(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DocProducer.partitionFor(1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
