/**
 * The store's internals: the {@link io.docstore.service.store.Indexer} that derives the index from
 * the queue in sequence order, the read path through the document cache shared by the primary and
 * replicas ({@link io.docstore.service.store.CachedReads}), positions in the update log (where the
 * queue's runs end, {@link io.docstore.service.store.SourceKeys}, and how far reads see each
 * partition, {@link io.docstore.service.store.VisiblePositions}), the index checkpoint file, and
 * the store's meters. Knows the queue and index facades; must not know HTTP, RPC or configuration
 * files.
 */
package io.docstore.service.store;
