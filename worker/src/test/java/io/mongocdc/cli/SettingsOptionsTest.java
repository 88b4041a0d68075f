package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.MirrorSetting;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

class SettingsOptionsTest {

  @Command(name = "probe")
  static final class Probe {
    @Mixin SettingsOptions settings;
  }

  @Test
  void everySettingHasItsOptionWithTheDeclaredHelp() {
    CommandSpec spec = new CommandLine(new Probe()).getCommandSpec();
    Map<String, OptionSpec> options = spec.optionsMap();
    for (MirrorSetting<?> setting : MirrorSettings.SETTINGS) {
      if (setting == MirrorSettings.ADD_COLLECTIONS) {
        continue; // an option of 'mirror edit' only
      }
      for (String option : setting.options()) {
        assertTrue(options.containsKey(option), "no option " + option + " for " + setting.name());
      }
      if (setting.options().size() == 1) {
        assertEquals(List.of(setting.doc()), List.of(options.get(setting.option()).description()), setting.name());
      }
    }
    assertTrue(spec.negatedOptionsMap().containsKey("--no-snapshot"), "stored switches are negatable");
  }

  @Test
  void theOptionsGivenBecomeTheEditsJsonAndOnlyThose() {
    Probe probe = new Probe();
    new CommandLine(probe).parseArgs("--batch-size", "5000", "--control-event-policy", "IGNORE", "--no-snapshot",
        "--exclude-operations", "delete,replace", "--snapshot-filter", "orders={\"a\": 1}", "--remove-column",
        "orders:status", "--history", "orders");
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("batchSize", 5000);
    expected.put("excludedOperations", List.of("delete", "replace"));
    expected.put("controlEventPolicy", "IGNORE");
    expected.put("snapshot", false);
    expected.put("snapshotFilters", Map.of("orders", "{\"a\": 1}"));
    expected.put("history", Map.of("orders", true));
    expected.put("removeColumns", Map.of("orders", List.of("status")));
    assertEquals(expected, probe.settings.asJson(null));
    assertEquals(List.copyOf(expected.keySet()), List.copyOf(probe.settings.asJson(null).keySet()));

    CliException editOnly = assertThrows(CliException.class, () -> probe.settings.applyTo(MirrorSettings.defaults(), List.of()));
    assertEquals("--remove-column changes a running mirror: use it with mongo-cdc mirror edit", editOnly.getMessage());

    Probe creating = new Probe();
    new CommandLine(creating).parseArgs("--batch-size", "5000", "--control-event-policy", "IGNORE", "--no-snapshot");
    MirrorSettings applied = creating.settings.applyTo(MirrorSettings.defaults(), List.of());
    assertEquals(5000, applied.batchSize());
    assertEquals(ControlEventPolicy.IGNORE, applied.controlEventPolicy());
    assertEquals(false, applied.snapshot().enabled());
  }

  /**
   * Issue 47, finding 8: {@code orders:note,orders:paid} made a path named {@code orders:paid},
   * which no document has, so {@code paid} stayed on every row. An item with a ':' is a path of
   * the option's collection, a rule of another collection the mirror has, or refused.
   */
  @Test
  void aFieldRuleItemNamingItsCollectionAgainIsOneMorePathAndNoPathHoldsAColon() {
    Probe probe = new Probe();
    new CommandLine(probe).parseArgs("--exclude-fields", "orders:note,orders:paid", "--hash-fields",
        "orders:email, users:email,name");
    MirrorSettings applied = probe.settings.applyTo(MirrorSettings.defaults(), List.of("orders", "users"));
    assertEquals(new FieldRules(List.of("note", "paid"), List.of("email")), applied.fieldRules().of("orders"));
    assertEquals(new FieldRules(List.of(), List.of("email", "name")), applied.fieldRules().of("users"));

    Probe other = new Probe();
    new CommandLine(other).parseArgs("--exclude-fields", "orders:note,items:x");
    CliException unknown = assertThrows(CliException.class,
        () -> other.settings.applyTo(MirrorSettings.defaults(), List.of("orders", "users")));
    assertEquals("--exclude-fields 'orders:note,items:x': 'items:x' is not a path of orders (no path holds a ':') and"
        + " items is not one of the mirror's collections [orders, users]; write COLLECTION:PATH[,PATH...] with the"
        + " paths of that collection after its one name (orders:note,paid), and give each collection its own"
        + " --exclude-fields", unknown.getMessage());
    // An edit does not know the mirror's collections: another collection goes in an option of its own.
    assertThrows(CliException.class, () -> other.settings.asJson(null));

    Probe colon = new Probe();
    new CommandLine(colon).parseArgs("--hash-fields", "orders:a:b");
    CliException inPath = assertThrows(CliException.class, () -> colon.settings.asJson(null));
    assertTrue(inPath.getMessage().startsWith("--hash-fields 'orders:a:b': the path 'a:b' of orders holds a ':',"
        + " which no path here can; write COLLECTION:PATH[,PATH...]"), inPath.getMessage());

    Probe removing = new Probe();
    new CommandLine(removing).parseArgs("--remove-field-rules", "orders:note,orders:paid");
    assertEquals(Map.of("removeFieldRules", Map.of("orders", List.of("note", "paid"))),
        removing.settings.asJson(null));
  }

  @Test
  void noOptionsChangeNothing() {
    Probe probe = new Probe();
    new CommandLine(probe).parseArgs();
    assertEquals(Map.of(), probe.settings.asJson(null));
    assertEquals(MirrorSettings.defaults(), probe.settings.applyTo(MirrorSettings.defaults(), List.of()));
  }
}
