/**
 * The inbox: a watched directory of NDJSON update files applied in name order and moved to {@code
 * done/} or {@code failed/}, and the {@link io.docstore.service.inbox.InboxPoint} that lets a file
 * resume after a crash without applying a line twice. Goes through {@link
 * io.docstore.service.DocumentSink} only; must not touch the queue or index.
 */
package io.docstore.service.inbox;
