package io.docstore.queue;

/** What a record does to its document: store this body, or delete the document. */
public enum Op {
  PUT,
  DELETE
}
