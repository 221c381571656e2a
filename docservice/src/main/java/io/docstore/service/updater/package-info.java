/**
 * The updater: turns update input (admin HTTP bodies, NDJSON lines of bulk requests, inbox files,
 * import files) into validated {@link io.docstore.service.Update}s and applies them to a {@link
 * io.docstore.service.DocumentSink} in batches. Validation is a strict single-pass scanner ({@code
 * JsonScanner}, over {@code AsciiScan}'s eight-byte scans) with Jackson deciding whatever it is
 * unsure of and wording every error; field groups' projections use the same scanner. Must not read
 * documents or serve lookups.
 */
package io.docstore.service.updater;
