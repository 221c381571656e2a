/**
 * Configuration: loading the HOCON file with its override layers and validating every value once,
 * at start. Holds values only; must not open files of the store or start anything.
 */
package io.docstore.service.config;
