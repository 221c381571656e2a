/**
 * Bulk loading of NDJSON update files ({@code docstore import --bulk}): {@link
 * io.docstore.service.bulk.BulkLoad} cuts the input into chunks of whole lines ({@link
 * io.docstore.service.bulk.ChunkReader}), parses and validates them on several threads (the
 * updater's {@code UpdateParser}), appends the documents to the queue through its bulk appender and
 * ingests one sorted index file. Offline: {@code BulkLoad.load} locks the data directory. {@code
 * BulkLoad} and {@code ChunkReader} are public for the CLI and the bench.
 */
package io.docstore.service.bulk;
