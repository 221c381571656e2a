package io.docstore.service.groups;

import io.docstore.index.IndexCursor;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.ReclaimedAddressException;
import io.docstore.queue.RecordBody;
import io.docstore.service.store.GroupKeys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The re-projection of every live document onto the configured groups ({@code docstore regroup},
 * docs/design/groups.md): for each document key of the index, the document is read and a GROUPS
 * record of kind 1 appended (its source sequence is the document's version, so the indexer applies
 * it only while that version is current and a write meanwhile always wins). Durable and applied in
 * steps of 1,024 documents. A document that cannot be projected keeps what it had and is listed.
 */
public final class Regroup {

  /** What a run did: documents projected, documents that could not be, the first 20 reasons. */
  public record Result(long projected, long skipped, List<String> problems) {}

  /** What the re-projection needs of the store. */
  public interface Store {
    /** A cursor over the index from key 0 (document keys come first). */
    IndexCursor documents() throws IOException;

    /** The document's record at {@code address}, checked to be {@code id}'s. */
    QueueRecord load(long id, long address) throws IOException;

    /** Appends a GROUPS record; returns its sequence. */
    long append(long id, long acceptedAtMillis, byte[] record) throws IOException;

    /** Returns once every record up to {@code sequence} is durable and applied to the index. */
    void awaitApplied(long sequence) throws IOException;
  }

  private static final int STEP = 1024;

  private final FieldGroups groups;
  private final int maxBodyBytes;
  private final Store store;

  public Regroup(FieldGroups groups, int maxBodyBytes, Store store) {
    this.groups = groups;
    this.maxBodyBytes = maxBodyBytes;
    this.store = store;
  }

  /** Runs it; {@code progress} is called with the documents done so far. */
  public Result run(LongConsumer progress) throws IOException {
    long projected = 0;
    long skipped = 0;
    List<String> problems = new ArrayList<>();
    long last = 0;
    try (IndexCursor c = store.documents()) {
      while (c.next() && c.id() <= GroupKeys.MAX_DOCUMENT_ID) {
        long id = c.id();
        if (c.value() < 0) {
          continue;
        }
        QueueRecord r;
        try {
          r = store.load(id, c.value());
        } catch (ReclaimedAddressException e) {
          continue; // relocated meanwhile: its relocated copy carries its projections
        }
        long expires = r.expiresAtMillis();
        if (expires != RecordBody.NEVER && System.currentTimeMillis() >= expires) {
          continue;
        }
        byte[][] p;
        try {
          p = groups.projectForWrite(id, r.document(), maxBodyBytes);
        } catch (IllegalArgumentException e) {
          skipped++;
          if (problems.size() < 20) {
            problems.add(e.getMessage());
          }
          continue;
        }
        last = store.append(id, r.acceptedAtMillis(), groups.record(r.version(), expires, p));
        if (++projected % STEP == 0) {
          store.awaitApplied(last);
          progress.accept(projected + skipped);
        }
      }
    }
    if (last > 0) {
      store.awaitApplied(last);
    }
    progress.accept(projected + skipped);
    return new Result(projected, skipped, problems);
  }
}
