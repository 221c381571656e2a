/**
 * Space reclamation: {@link io.docstore.service.gc.SpaceReclaimer} picks sealed queue segments with
 * the most garbage, relocates what in them is still needed to the head of the queue (RELOCATED and
 * DROPPED records, applied to the index by compare-and-set) and replaces each by its hollow form.
 * Design and invariants: docs/design/space-reclamation.md.
 */
package io.docstore.service.gc;
