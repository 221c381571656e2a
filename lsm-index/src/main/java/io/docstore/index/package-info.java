/**
 * The LSM index facade: {@link io.docstore.index.LsmIndex} and its options, cursor and stats. Maps
 * 64-bit ids to opaque 64-bit values; knows nothing of the queue or of what a value addresses.
 */
package io.docstore.index;
