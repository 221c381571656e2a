package io.docstore.service.kafka;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka ingest's rate-limited log lines, so that a broker down or a topic full of bad messages
 * does not flood the log: a failure at most every 30 s; dead letters one line each, at most {@value
 * #DEAD_LETTER_LINES} per 30 s, then a count of those not logged (the metric counts them all).
 * Thread-safe (the consumer's thread and the apply thread both log).
 */
final class IngestLog {

  private static final Logger log = LoggerFactory.getLogger(KafkaIngest.class);

  /** Dead letters logged one by one per window; the rest are summed up at its end. */
  static final int DEAD_LETTER_LINES = 20;

  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(30);

  private long deadLetterWindow = System.nanoTime() - WINDOW_NANOS;
  private int deadLettersLogged;
  private long deadLettersUnlogged;
  private long failureLogged = System.nanoTime() - WINDOW_NANOS;

  synchronized void failure(String what, Exception e) {
    long now = System.nanoTime();
    if (now - failureLogged >= WINDOW_NANOS) {
      failureLogged = now;
      log.warn("{} (logged at most every 30 s): {}", what, e.toString());
    }
  }

  synchronized void deadLetter(ConsumerRecord<byte[], byte[]> r, LogMessages.Decoded d) {
    long now = System.nanoTime();
    if (now - deadLetterWindow >= WINDOW_NANOS) {
      if (deadLettersUnlogged > 0) {
        log.warn(
            "{} more dead letters in the last 30 s were not logged one by one"
                + " (docstore_kafka_dead_letters_total counts them all)",
            deadLettersUnlogged);
      }
      deadLetterWindow = now;
      deadLettersLogged = 0;
      deadLettersUnlogged = 0;
    }
    if (deadLettersLogged++ < DEAD_LETTER_LINES) {
      log.warn(
          "dead letter: topic '{}' partition {} offset {}: {} ({}); skipped",
          r.topic(),
          r.partition(),
          r.offset(),
          d.reason().tag,
          d.detail());
    } else {
      deadLettersUnlogged++;
    }
  }
}
