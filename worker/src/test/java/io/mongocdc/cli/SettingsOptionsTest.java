package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.ControlEventPolicy;
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

    CliException editOnly = assertThrows(CliException.class, () -> probe.settings.applyTo(MirrorSettings.defaults()));
    assertEquals("--remove-column changes a running mirror: use it with mongo-cdc mirror edit", editOnly.getMessage());

    Probe creating = new Probe();
    new CommandLine(creating).parseArgs("--batch-size", "5000", "--control-event-policy", "IGNORE", "--no-snapshot");
    MirrorSettings applied = creating.settings.applyTo(MirrorSettings.defaults());
    assertEquals(5000, applied.batchSize());
    assertEquals(ControlEventPolicy.IGNORE, applied.controlEventPolicy());
    assertEquals(false, applied.snapshot().enabled());
  }

  @Test
  void noOptionsChangeNothing() {
    Probe probe = new Probe();
    new CommandLine(probe).parseArgs();
    assertEquals(Map.of(), probe.settings.asJson(null));
    assertEquals(MirrorSettings.defaults(), probe.settings.applyTo(MirrorSettings.defaults()));
  }
}
