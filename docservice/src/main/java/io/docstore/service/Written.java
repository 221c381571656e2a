package io.docstore.service;

/**
 * The acknowledgement of one update: it is durable under the sync policy and readable on this node.
 *
 * @param id the document ID
 * @param sequence the queue sequence number assigned to the update (the document's new version)
 */
public record Written(long id, long sequence) {}
