/**
 * The write-ahead log: appending records with group commit, and replaying them with the torn-tail
 * policy of docs/formats/wal.md. Knows nothing of tables, manifests or the memory table.
 */
package io.docstore.index.wal;
