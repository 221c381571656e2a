/**
 * Read-only tools over an index directory: {@link io.docstore.index.tools.IndexDump} prints any
 * index file, {@link io.docstore.index.tools.IndexVerifier} checks every checksum. They never write
 * and never open the index itself; the CLI wiring lives in docservice.
 */
package io.docstore.index.tools;
