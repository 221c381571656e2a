package io.docstore.service.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the shaded jar and of {@code scripts/docstore}. */
@Command(
    name = "docstore",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Append-only document store with an LSM index.",
    subcommands = {
      ServeCommand.class,
      io.docstore.service.replica.ReplicaCommand.class,
      ImportCommand.class,
      ProduceCommand.class,
      MovePartitionCommand.class,
      GetCommand.class,
      StatsCommand.class,
      DumpCommand.class,
      VerifyCommand.class,
      RebuildIndexCommand.class,
      GcCommand.class,
      RegroupCommand.class,
      RepairSegmentsCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main {

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs a command line and returns its exit code (used by tests without exiting the JVM). */
  public static int run(String... args) {
    return new CommandLine(new Main())
        .setExecutionExceptionHandler(
            (e, cmd, parsed) -> {
              // Expected failures (bad files, unreachable servers) get one line, not a stack trace.
              System.err.println(
                  "docstore "
                      + cmd.getCommandName()
                      + ": "
                      + (e.getMessage() == null ? e.toString() : e.getMessage()));
              return 1;
            })
        .execute(args);
  }

  /** Reports the version Maven wrote into the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"docstore " + (v == null ? "(development build)" : v)};
    }
  }
}
