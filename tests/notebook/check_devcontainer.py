#!/usr/bin/env python3
"""check_devcontainer.py ROOT - .devcontainer/devcontainer.json has the shape the
dev-container specification requires, and installs ./tutorial's own package list.

The schema check is a small one written here (no network, no schema library):
the top-level properties the specification defines that a file like this
uses, each with its type; exactly one way to get a container (image, build's
Dockerfile, or a Compose file with its service); lifecycle commands as a
string, a list of strings or an object of those; VS Code extensions as
"publisher.name". Then the project's own rules: a Debian 12 image, the clangd
and Marp extensions, `./tutorial tour` after creation, and the packages
installed as `$(./tutorial packages)`: the one list, never a copy (the
README's list is checked against it too).
Prints every problem, one a line; exit status 1 when there is any.
"""

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

LIFECYCLE = ["initializeCommand", "onCreateCommand", "updateContentCommand", "postCreateCommand",
             "postStartCommand", "postAttachCommand"]
STRING_PROPERTIES = ["name", "image", "dockerFile", "context", "service", "workspaceFolder", "workspaceMount",
                     "remoteUser", "containerUser", "shutdownAction", "userEnvProbe", "waitFor"]
OBJECT_PROPERTIES = ["build", "features", "customizations", "containerEnv", "remoteEnv", "hostRequirements",
                     "portsAttributes", "otherPortsAttributes"]
LIST_PROPERTIES = ["forwardPorts", "runArgs", "mounts", "runServices", "overrideFeatureInstallOrder"]
BOOL_PROPERTIES = ["overrideCommand", "init", "privileged", "updateRemoteUserUID"]
EXTENSION_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*$", re.IGNORECASE)
DEBIAN_PACKAGE = re.compile(r"^[a-z0-9][a-z0-9+.-]+$")
WANTED_EXTENSIONS = ["llvm-vs-code-extensions.vscode-clangd", "marp-team.marp-vscode"]
PACKAGE_LIST = "$(./tutorial packages)"


def is_command(value):
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return bool(value) and all(isinstance(word, str) for word in value)
    if isinstance(value, dict):
        return all(isinstance(v, str) or (isinstance(v, list) and all(isinstance(w, str) for w in v))
                   for v in value.values())
    return False


def command_texts(value):
    """Each shell command line of a lifecycle command."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [shlex.join(value)]
    return [v if isinstance(v, str) else shlex.join(v) for v in value.values()]


def schema_problems(config):
    problems = []
    if not isinstance(config, dict):
        return ["the file must hold one JSON object"]
    known = set(LIFECYCLE + STRING_PROPERTIES + OBJECT_PROPERTIES + LIST_PROPERTIES + BOOL_PROPERTIES
                + ["dockerComposeFile", "appPort"])
    for key in config:
        if key not in known:
            problems.append(f"unknown property '{key}'")
    for keys, kind, name in ((STRING_PROPERTIES, str, "a string"), (OBJECT_PROPERTIES, dict, "an object"),
                             (LIST_PROPERTIES, list, "a list"), (BOOL_PROPERTIES, bool, "true or false")):
        for key in keys:
            if key in config and not isinstance(config[key], kind):
                problems.append(f"'{key}' must be {name}")
    for key in LIFECYCLE:
        if key in config and not is_command(config[key]):
            problems.append(f"'{key}' must be a command: a string, a list of strings, or an object of those")
    if "waitFor" in config and config["waitFor"] not in LIFECYCLE[1:]:
        problems.append(f"'waitFor' must be one of {', '.join(LIFECYCLE[1:])}")
    build = config.get("build") if isinstance(config.get("build"), dict) else {}
    sources = [("image" in config), bool(build.get("dockerfile") or config.get("dockerFile")),
               ("dockerComposeFile" in config)]
    if sum(sources) != 1:
        problems.append("exactly one of 'image', 'build.dockerfile' or 'dockerComposeFile' must say where the"
                        " container comes from")
    if "dockerComposeFile" in config and "service" not in config:
        problems.append("'dockerComposeFile' needs 'service'")
    vscode = config.get("customizations", {}).get("vscode", {}) if isinstance(config.get("customizations"), dict) \
        else {}
    if not isinstance(vscode, dict):
        problems.append("'customizations.vscode' must be an object")
        vscode = {}
    extensions = vscode.get("extensions", [])
    if not isinstance(extensions, list) or not all(isinstance(e, str) and EXTENSION_ID.match(e) for e in extensions):
        problems.append("'customizations.vscode.extensions' must be a list of publisher.name identifiers")
    if "settings" in vscode and not isinstance(vscode["settings"], dict):
        problems.append("'customizations.vscode.settings' must be an object")
    return problems


def project_problems(config, root):
    problems = []
    image = config.get("image", "")
    if not re.search(r"(bookworm|debian:12)", image):
        problems.append(f"the image '{image}' is not Debian 12 (bookworm)")
    extensions = config.get("customizations", {}).get("vscode", {}).get("extensions", [])
    for wanted in WANTED_EXTENSIONS:
        if wanted not in extensions:
            problems.append(f"the extension {wanted} is missing")
    commands = [text for key in LIFECYCLE if key in config for text in command_texts(config[key])]
    if not any("./tutorial tour" in text for text in command_texts(config.get("postCreateCommand", ""))):
        problems.append("postCreateCommand must run ./tutorial tour")
    installs = [part.split("apt-get install", 1)[1] for text in commands for part in text.split("&&")
                if "apt-get install" in part]
    if not installs:
        problems.append("no command installs the packages (apt-get install $(./tutorial packages))")
    for arguments in installs:
        names = [word for word in arguments.split() if not word.startswith("-")]
        if " ".join(names) != PACKAGE_LIST:
            problems.append(f"apt-get install must take exactly {PACKAGE_LIST}, the one list;"
                            f" it takes '{' '.join(names)}'")
    listed = subprocess.run([str(root / "tutorial"), "packages"], capture_output=True, text=True)
    packages = listed.stdout.split()
    if listed.returncode != 0 or not packages or not all(DEBIAN_PACKAGE.match(p) for p in packages):
        problems.append(f"./tutorial packages did not print a list of package names: {listed.stdout!r}"
                        f" {listed.stderr!r}")
    readme = (root / "README.md").read_text()
    shown = re.search(r"install what is missing \(`([^`]*)`", readme)
    # The flop counter's plugin package is named after the g++ that is
    # installed (gcc-12-plugin-dev on Debian 12, gcc-13-... on Ubuntu 24.04):
    # README.md names Debian 12's, any version matches.
    def plain(names):
        return sorted(re.sub(r"^gcc-[0-9]+-plugin-dev$", "gcc-N-plugin-dev", n) for n in names)
    if not shown or plain(shown.group(1).split()) != plain(packages):
        problems.append("README.md's list of installed packages (\"install what is missing (`...`\") differs"
                        " from ./tutorial packages")
    return problems


def main():
    root = (Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2]).resolve()
    path = root / ".devcontainer" / "devcontainer.json"
    try:
        config = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        print(f"{path}: {error}")
        return 1
    problems = schema_problems(config)
    if not problems:
        problems = project_problems(config, root)
    for problem in problems:
        print(f"{path.relative_to(root)}: {problem}")
    if not problems:
        print(f"{path.relative_to(root)}: the shape is right, and it installs ./tutorial packages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
