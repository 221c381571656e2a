/**
 * The updater: turns update input (admin HTTP bodies, NDJSON lines of bulk requests, inbox files,
 * import files) into validated {@link io.docstore.service.Update}s and applies them to a {@link
 * io.docstore.service.DocumentSink} in batches. Must not read documents or serve lookups.
 */
package io.docstore.service.updater;
