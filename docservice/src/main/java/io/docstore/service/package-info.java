/**
 * The running docstore service. This package holds its API and its composition root only:
 *
 * <ul>
 *   <li>API: {@link io.docstore.service.DocStore} (the queue and the index composed, with the
 *       document cache), opened with {@link io.docstore.service.DocStoreOptions}; it is a {@link
 *       io.docstore.service.DocumentSource} ({@link io.docstore.client.Document}s by id, the type
 *       shared with the client module) and a {@link io.docstore.service.DocumentSink} ({@link
 *       io.docstore.service.Update}s in, {@link io.docstore.service.Written} out);
 *   <li>composition root: {@link io.docstore.service.Service}, which builds and starts a primary.
 * </ul>
 *
 * <p>Sub-packages hold the rest: the updater, bulk loading ({@code bulk}), the HTTP and RPC read
 * APIs (the RPC wire format and the Java client are the docstore-client module), the cache tier,
 * the store's internals, replicas, configuration, metrics and the CLI. Data flows one way: updater
 * → queue → index → read APIs. The queue and index modules know nothing of this package.
 */
package io.docstore.service;
