/**
 * The running docstore service: {@code DocStore} composes the queue and the index; sub-packages
 * hold the updater, the HTTP and RPC read APIs, the cache tier, configuration, metrics and the CLI.
 * Data flows one way: updater → queue → index → read APIs. The queue and index modules know nothing
 * of this package.
 */
package io.docstore.service;
