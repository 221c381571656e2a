package io.docstore.service.kafka;

import io.docstore.client.DocProducer;
import io.docstore.client.KafkaKeys;
import io.docstore.service.Update;
import io.docstore.service.groups.FieldGroups;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.updater.InvalidUpdateException;
import io.docstore.service.updater.UpdateParser;
import java.util.Iterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads one record of the update topic (docs/formats/kafka-messages.md) as the store's {@link
 * Update}, or as a dead letter with its reason, checking everything the store would refuse so that
 * a batch of valid updates is never refused for one bad message: the key ({@link KafkaKeys}; below
 * 2^62 with field groups), the value (one JSON object, validated as {@code PUT /docs/{id}} does,
 * within {@code queue.max-body}; with field groups also its projections, which the store computes
 * again when it appends), and the expiry header. Thread-safe.
 */
final class LogMessages {

  /** Why a record is a dead letter: the {@code reason} tag of its counter. */
  enum Reason {
    KEY("key"),
    VALUE("value"),
    TOO_LARGE("too_large"),
    EXPIRY("expiry");

    final String tag;

    Reason(String tag) {
      this.tag = tag;
    }
  }

  /** A record's update, or (update null) the reason it is a dead letter and the details. */
  record Decoded(Update update, Reason reason, String detail) {

    static Decoded dead(Reason reason, String detail) {
      return new Decoded(null, reason, detail);
    }
  }

  private final UpdateParser parser;
  private final FieldGroups groups;

  LogMessages(int maxBodyBytes, FieldGroups groups) {
    this.parser = new UpdateParser(maxBodyBytes);
    this.groups = groups;
  }

  Decoded decode(ConsumerRecord<byte[], byte[]> r) {
    long id;
    try {
      id = KafkaKeys.decode(r.key());
    } catch (IllegalArgumentException e) {
      return Decoded.dead(Reason.KEY, e.getMessage());
    }
    if (!GroupKeys.validDocumentId(id, groups.configured())) {
      return Decoded.dead(
          Reason.KEY, "ID " + id + " is not below 2^62, the limit with field groups configured");
    }
    long expires;
    try {
      expires = expiry(r);
    } catch (InvalidUpdateException e) {
      return Decoded.dead(Reason.EXPIRY, e.getMessage());
    }
    byte[] value = r.value();
    if (value == null) {
      return expires == 0
          ? new Decoded(Update.delete(id), null, null)
          : Decoded.dead(Reason.EXPIRY, "an expiry header on a delete (a null value)");
    }
    if (value.length > parser.maxBodyBytes()) {
      return Decoded.dead(
          Reason.TOO_LARGE,
          "value of " + value.length + " bytes, over queue.max-body of " + parser.maxBodyBytes());
    }
    long discovered;
    try {
      discovered = parser.validateDocument(value, 0, value.length);
      if (groups.configured()) {
        groups.projectForWrite(id, value, parser.maxBodyBytes());
      }
    } catch (InvalidUpdateException | IllegalArgumentException e) {
      return Decoded.dead(Reason.VALUE, e.getMessage());
    }
    return new Decoded(new Update(id, value, discovered, expires), null, null);
  }

  /** The record's expiry in epoch milliseconds, 0 for none. */
  private static long expiry(ConsumerRecord<byte[], byte[]> r) throws InvalidUpdateException {
    Iterator<Header> it = r.headers().headers(DocProducer.EXPIRES_AT_HEADER).iterator();
    if (!it.hasNext()) {
      return 0;
    }
    byte[] v = it.next().value();
    if (it.hasNext()) {
      throw new InvalidUpdateException(DocProducer.EXPIRES_AT_HEADER + " header given twice");
    }
    try {
      long at = KafkaKeys.decode(v); // the same grammar: canonical decimal, 0..Long.MAX_VALUE
      if (at > 0) {
        return at;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    throw new InvalidUpdateException(
        DocProducer.EXPIRES_AT_HEADER
            + " header is not a positive decimal integer (epoch milliseconds): "
            + printable(v));
  }

  /** Up to 40 bytes of a header value, non-printable bytes as {@code \xNN}. */
  private static String printable(byte[] v) {
    if (v == null) {
      return "(null)";
    }
    StringBuilder b = new StringBuilder("'");
    for (int i = 0; i < Math.min(v.length, 40); i++) {
      int c = v[i] & 0xff;
      if (c >= 0x20 && c < 0x7f && c != '\'') {
        b.append((char) c);
      } else {
        b.append(String.format("\\x%02x", c));
      }
    }
    return b.append(v.length > 40 ? "'..." : "'").toString();
  }
}
