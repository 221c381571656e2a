/**
 * Bulk loading of NDJSON update files ({@code docstore import --bulk}): {@link
 * io.docstore.service.bulk.BulkLoad} cuts the input into chunks of whole lines ({@link
 * io.docstore.service.bulk.ChunkReader}), parses and validates them on several threads (the
 * single-pass {@code BulkLineScanner} over {@code AsciiScan}'s eight-byte scans, Jackson's {@code
 * UpdateParser} for whatever it is unsure of), appends the documents to the queue through its bulk
 * appender and ingests one sorted index file. Offline: {@code BulkLoad.load} locks the data
 * directory. {@code BulkLoad} and {@code ChunkReader} are public for the CLI and the bench; the
 * parsing internals are package-private.
 */
package io.docstore.service.bulk;
