/**
 * File naming and the common file header shared by every lsm-index format. Owns no format body and
 * does no I/O; it must not depend on other index packages.
 */
package io.docstore.index.file;
