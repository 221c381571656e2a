/**
 * The {@code docstore} command line (picocli): one class per subcommand, wired in {@link
 * io.docstore.service.cli.Main}. Commands parse arguments and call the modules' public APIs and
 * tools; they hold no storage logic of their own.
 */
package io.docstore.service.cli;
