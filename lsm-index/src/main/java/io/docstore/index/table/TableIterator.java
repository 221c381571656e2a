package io.docstore.index.table;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Sequential reader of a table from a starting id, 64 pages per positional read. Every page's
 * checksum is verified before its entries are returned, so a merge never copies a damaged page into
 * a new table and a scan never returns damaged data. Single-threaded; the caller holds a reference
 * to the table for the iterator's lifetime.
 */
final class TableIterator implements EntryIterator {

  private static final int CHUNK_PAGES = 64;

  private final Table table;
  private final long fromId;
  private final ByteBuffer buf =
      ByteBuffer.allocate(CHUNK_PAGES * TableFormat.PAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN);
  private int nextPage;
  private int chunkFirstPage;
  private int chunkPages;
  private int page;
  private int index;
  private int inPage;
  private long id;
  private long value;

  TableIterator(Table table, long fromId) {
    this.table = table;
    this.fromId = fromId;
    int p = table.pageFor(fromId);
    this.nextPage = Math.max(0, p);
    this.page = nextPage - 1;
    this.index = 0;
    this.inPage = 0;
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      if (index < inPage) {
        int at = (page - chunkFirstPage) * TableFormat.PAGE_SIZE + index * TableFormat.ENTRY_SIZE;
        index++;
        id = buf.getLong(at);
        value = buf.getLong(at + 8);
        if (id >= fromId) {
          return true;
        }
        continue;
      }
      if (nextPage >= table.pageCount()) {
        return false;
      }
      if (nextPage >= chunkFirstPage + chunkPages) {
        readChunk(nextPage);
      }
      page = nextPage++;
      index = 0;
      inPage = table.entriesInPage(page);
    }
  }

  private void readChunk(int first) throws IOException {
    int n = Math.min(CHUNK_PAGES, table.pageCount() - first);
    buf.clear().limit(n * TableFormat.PAGE_SIZE);
    Table.readFully(table.channel(), buf, TableFormat.pageOffset(first), table.path());
    for (int i = 0; i < n; i++) {
      int expected = table.pageCrc(first + i);
      int actual = Checksums.crc32c(buf, i * TableFormat.PAGE_SIZE, TableFormat.PAGE_SIZE);
      if (expected != actual) {
        throw CorruptionException.checksum(
            table.path(),
            TableFormat.pageOffset(first + i),
            "table page " + (first + i),
            expected,
            actual);
      }
    }
    chunkFirstPage = first;
    chunkPages = n;
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public long value() {
    return value;
  }
}
