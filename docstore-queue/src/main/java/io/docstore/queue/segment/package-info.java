/**
 * Segment files: header and footer, the registry of segments readers consult, appending blocks to
 * the active segment with sealing and rolling, scanning a file block by block, and recovery at
 * open. Every durable operation goes through {@link io.docstore.io.FileSystem}. Must not know about
 * the public record types of the facade or about tailers.
 */
package io.docstore.queue.segment;
