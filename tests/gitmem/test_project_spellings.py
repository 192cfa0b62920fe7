"""One repository, every spelling of its URL, one project: the Azure DevOps https and ssh
forms (and the older visualstudio.com ones) share no host/path shape, so two clones of one
repository, one by https and one by ssh, were refused as two projects (`gitmem adopt` needed
on one). Their keys stay as they are; `RefMeta.knows` takes any spelling of the project."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gitmem.project.identity import normalize_remote_url, same_project
from gitmem.project.refmeta import RefMeta

NAME = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,12}", fullmatch=True)


def azure_spellings(org: str, project: str, repo: str) -> list[str]:
    return [
        f"https://dev.azure.com/{org}/{project}/_git/{repo}",
        f"https://{org}@dev.azure.com/{org}/{project}/_git/{repo}",
        f"git@ssh.dev.azure.com:v3/{org}/{project}/{repo}",
        f"ssh://git@ssh.dev.azure.com/v3/{org}/{project}/{repo}",
        f"https://{org}.visualstudio.com/{project}/_git/{repo}",
        f"{org}@vs-ssh.visualstudio.com:v3/{org}/{project}/{repo}",
    ]


@given(NAME, NAME, NAME)
def test_every_azure_spelling_of_one_repository_is_one_project(
    org: str, project: str, repo: str
) -> None:
    keys = [normalize_remote_url(u) for u in azure_spellings(org, project, repo)]
    upper = [normalize_remote_url(u) for u in azure_spellings(org.upper(), project, repo.upper())]
    for a in keys + upper:
        assert RefMeta(1, a).knows(keys[2])  # a ref made by https, synced by ssh
        for b in keys + upper:
            assert same_project(a, b) and same_project(b, a)


@given(NAME, NAME, NAME, NAME)
def test_other_repositories_stay_other_projects(
    org: str, project: str, repo: str, other: str
) -> None:
    if other.lower() == repo.lower():
        return
    mine = normalize_remote_url(f"git@ssh.dev.azure.com:v3/{org}/{project}/{repo}")
    theirs = normalize_remote_url(f"https://dev.azure.com/{org}/{project}/_git/{other}")
    assert not same_project(mine, theirs) and not RefMeta(1, theirs).knows(mine)
    assert not same_project(f"github.com/{org}/{repo}", f"github.com/{org}/{other}")


@given(NAME, NAME, NAME)
def test_every_azure_spelling_of_one_repository_is_one_project_on_the_hub(
    org: str, project: str, repo: str
) -> None:
    # the hub keeps each project's personal ref under a folder named by its key: one project
    # reached by https on one machine and ssh on another must meet there, as on its own remote
    from pathlib import Path

    from gitmem.project.scopes import Project, hub_component

    def hub_ref(key: str) -> str:
        home = Project(None, Path("/p"), key, "origin", "me", (), hub="/hub")  # type: ignore[arg-type]
        return home.route(home.user_ref).name

    spellings = azure_spellings(org, project, repo) + azure_spellings(org.upper(), project, repo)
    names = {hub_ref(normalize_remote_url(u)) for u in spellings}
    assert len(names) == 1, names
    other = normalize_remote_url(f"https://dev.azure.com/{org}/{project}/_git/{repo}x")
    assert hub_ref(other) not in names
    github = normalize_remote_url(f"https://github.com/{org}/{repo}")
    assert hub_ref(github) == f"refs/gitmem/projects/{hub_component(github)}/users/me"
