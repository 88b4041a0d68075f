package io.mongocdc.cli;

import picocli.CommandLine.Command;

/** Groups the commands that act on one mirror. */
@Command(name = "mirror", mixinStandardHelpOptions = true, description = "Create, control, inspect and drop mirrors.",
    subcommands = {
        MirrorCreateCommand.class, MirrorPauseCommand.class, MirrorResumeCommand.class,
        MirrorEditCommand.class, MirrorStatusCommand.class, MirrorDropCommand.class,
        MirrorReplayQuarantineCommand.class, MirrorVerifyCommand.class, MirrorResyncCommand.class,
        MirrorSuggestColumnsCommand.class})
final class MirrorCommand {}
