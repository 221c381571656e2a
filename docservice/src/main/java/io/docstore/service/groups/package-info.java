/**
 * Field groups ({@code docstore.groups}, docs/design/groups.md): which top-level fields each group
 * holds, and the projection of a document onto them. The write path stores the projections in a
 * GROUPS record just before the document; the read path serves {@code ?group=}.
 */
package io.docstore.service.groups;
