package io.docstore.service;

import io.docstore.index.LsmIndex;
import io.docstore.io.FileSystem;
import io.docstore.queue.DocQueue;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import io.docstore.queue.RecordHeaderScan;
import io.docstore.queue.SegmentSummary;
import io.docstore.service.gc.SpaceReclaimer;
import io.docstore.service.store.LiveRecords;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** A {@link DocStore} as its space reclamation sees it: the queue, the index and two operations. */
final class ReclaimableStore implements SpaceReclaimer.Store {

  /**
   * Appends relocations and waits until they are durable and applied; returns the last sequence.
   */
  @FunctionalInterface
  interface Appender {
    long append(List<SpaceReclaimer.Relocation> records) throws IOException;
  }

  /** Syncs the index and publishes its checkpoint; returns the checkpointed sequence. */
  @FunctionalInterface
  interface Checkpointer {
    long checkpoint() throws IOException;
  }

  private final DocQueue queue;
  private final LsmIndex index;
  private final LiveRecords liveRecords;
  private final FileSystem fs;
  private final Path dir;
  private final Appender appender;
  private final Checkpointer checkpointer;

  ReclaimableStore(
      DocQueue queue,
      LsmIndex index,
      LiveRecords liveRecords,
      FileSystem fs,
      Path dir,
      Appender appender,
      Checkpointer checkpointer) {
    this.queue = queue;
    this.index = index;
    this.liveRecords = liveRecords;
    this.fs = fs;
    this.dir = dir;
    this.appender = appender;
    this.checkpointer = checkpointer;
  }

  @Override
  public List<SegmentSummary> segments() {
    return queue.segmentSummaries();
  }

  @Override
  public long wholeBlockBytes(long number, boolean scan) throws IOException {
    return queue.wholeBlockBytesAfterDictionary(number, scan);
  }

  @Override
  public boolean lz4Appends() {
    return !queue.readOnly() && queue.writer().lz4Appends();
  }

  @Override
  public boolean reclaimed(long number) {
    return queue.reclaimed(number);
  }

  @Override
  public long liveRecords(long number) {
    return liveRecords.live(number);
  }

  @Override
  public long lookup(long id) throws IOException {
    return index.get(id);
  }

  @Override
  public QueueTailer tailer(long sequence) throws IOException {
    return queue.tailer(sequence);
  }

  @Override
  public RecordHeaderScan scanHeaders(long number) {
    return queue.scanHeaders(number);
  }

  @Override
  public QueueRecord read(long address) throws IOException {
    return queue.reader().get(address);
  }

  @Override
  public long appendAndApply(List<SpaceReclaimer.Relocation> records) throws IOException {
    return appender.append(records);
  }

  @Override
  public long checkpoint() throws IOException {
    return checkpointer.checkpoint();
  }

  @Override
  public void reclaim(long number) throws IOException {
    queue.reclaim(number);
  }

  @Override
  public long freeBytes() throws IOException {
    return fs.usableSpace(dir);
  }
}
