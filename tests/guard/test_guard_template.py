"""Template side: loading, ServiceToken resolution, finding handler code and its lines."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from cfnops.errors import ExitCode
from cfnops.guard import GuardInputError, check_template
from cfnops.guard._template import handler_code, load_template, service_function


def write(tmp_path: Path, text: str, name: str = "template.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(GuardInputError) as info:
        load_template(tmp_path / "nope.yaml")
    assert info.value.exit_code == ExitCode.USAGE
    assert "file not found" in info.value.message


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "Resources:\n  A: [\n")
    with pytest.raises(GuardInputError) as info:
        load_template(path)
    assert info.value.line == 3
    assert f"{path}:3" in info.value.message


@pytest.mark.parametrize("text", ["- 1\n- 2\n", "Description: no resources\n", '"just text"\n'])
def test_not_a_template(tmp_path: Path, text: str) -> None:
    with pytest.raises(GuardInputError, match="not a CloudFormation template"):
        load_template(write(tmp_path, text))


def test_code_option_must_be_a_folder(tmp_path: Path) -> None:
    path = write(tmp_path, "Resources: {}\n")
    with pytest.raises(GuardInputError, match="--code must be a folder"):
        check_template(path, tmp_path / "missing")


def test_template_without_custom_resources(tmp_path: Path) -> None:
    path = write(tmp_path, "Resources:\n  Q:\n    Type: AWS::SQS::Queue\n")
    report = check_template(path)
    assert (report.custom_resources, report.findings, report.notes) == ((), (), ())


SERVICE_TOKENS = """
Resources:
  Fn:
    Type: AWS::Lambda::Function
    Properties: {Runtime: python3.12, Handler: index.handler, Code: {ZipFile: "x = 1"}}
  ByString:
    Type: Custom::A
    Properties: {ServiceToken: !GetAtt Fn.Arn}
  ByList:
    Type: Custom::A
    Properties: {ServiceToken: {"Fn::GetAtt": [Fn, Arn]}}
  ByRef:
    Type: Custom::A
    Properties: {ServiceToken: !Ref Fn}
  BySub:
    Type: Custom::A
    Properties: {ServiceToken: !Sub "arn:aws:lambda:${AWS::Region}:1:function:${Fn}"}
  ByIf:
    Type: Custom::A
    Properties: {ServiceToken: !If [Cond, !GetAtt Fn.Arn, !GetAtt Fn.Arn]}
  NoToken:
    Type: Custom::A
    Properties: {}
"""


@pytest.mark.parametrize("resource", ["ByString", "ByList", "ByRef", "BySub", "ByIf"])
def test_service_token_forms(tmp_path: Path, resource: str) -> None:
    template = load_template(write(tmp_path, SERVICE_TOKENS))
    assert service_function(template, resource) == ("Fn", "")


def test_missing_service_token(tmp_path: Path) -> None:
    template = load_template(write(tmp_path, SERVICE_TOKENS))
    assert service_function(template, "NoToken") == (None, "it has no ServiceToken")


def test_block_scalar_lines_map_to_the_template(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties:
              Runtime: python3.12
              Handler: index.main
              Code:
                ZipFile: |
                  import cfnresponse
                  def main(event, context):
                      pass
        """,
    )
    source, why = handler_code(load_template(path), "Fn", None)
    assert source is not None, why
    assert (source.language, source.entry, source.file) == ("python", "main", str(path))
    assert [source.file_line(n) for n in (1, 2, 3)] == [9, 10, 11]


def test_sam_globals_and_code_dir_per_function(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Transform: AWS::Serverless-2016-10-31
        Globals:
          Function:
            Runtime: nodejs20.x
            Handler: lib/main.handler
        Resources:
          Fn:
            Type: AWS::Serverless::Function
            Properties:
              CodeUri: s3://bucket/key.zip
        """,
    )
    code = tmp_path / "code"
    (code / "Fn" / "lib").mkdir(parents=True)
    (code / "Fn" / "lib" / "main.mjs").write_text("export const handler = async () => ({});\n")
    source, why = handler_code(load_template(path), "Fn", code)
    assert source is not None, why
    assert source.file == str(code / "Fn" / "lib" / "main.mjs")
    assert (source.language, source.entry, source.file_line(7)) == ("nodejs", "handler", 7)


def test_code_not_found_says_where_it_looked(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Serverless::Function
            Properties: {CodeUri: src/, Handler: app.handler, Runtime: python3.12}
          Res:
            Type: Custom::X
            Properties: {ServiceToken: !GetAtt Fn.Arn}
        """,
    )
    report = check_template(path)
    (note,) = report.notes
    assert note.resource == "Res"
    assert "'app' not found" in note.message
    assert str(tmp_path / "src") in note.message


def test_s3_code_without_code_dir_is_a_note(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties: {Code: {S3Bucket: b, S3Key: k}, Handler: index.handler}
          Res:
            Type: Custom::X
            Properties: {ServiceToken: !GetAtt Fn.Arn}
        """,
    )
    (note,) = check_template(path).notes
    assert "pass --code DIR" in note.message


def test_unparsable_handler_is_a_note_with_the_template_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties:
              Runtime: python3.12
              Handler: index.handler
              Code:
                ZipFile: |
                  def handler(event, context):
                      return (
          Res:
            Type: Custom::X
            Properties: {ServiceToken: !GetAtt Fn.Arn}
        """,
    )
    report = check_template(path)
    assert report.findings == ()
    (note,) = report.notes
    assert "cannot parse the handler" in note.message
    assert f"{path}:10: " in note.message  # the unclosed "return (" line


def test_language_is_guessed_without_a_runtime(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties:
              Handler: index.handler
              Code:
                ZipFile: |
                  const response = require('cfn-response');
                  exports.handler = (e, c) => response.send(e, c, response.SUCCESS, {});
          Res:
            Type: Custom::X
            Properties: {ServiceToken: !GetAtt Fn.Arn}
        """,
    )
    (finding,) = check_template(path).findings
    assert (finding.rule, finding.line) == ("CR001", 9)


def test_absurdly_nested_code_is_a_note_not_a_crash(tmp_path: Path) -> None:
    expression = " + ".join(["'x'"] * 3000)
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "index.py").write_text(
        f"def handler(event, context):\n    return {expression}\n"
    )
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties: {Code: {S3Bucket: b, S3Key: k}, Handler: index.handler, Runtime: python3.12}
          Res:
            Type: Custom::X
            Properties: {ServiceToken: !GetAtt Fn.Arn}
        """,
    )
    # Whether Python's recursion limit is reached depends on the interpreter's
    # settings (other tests may raise it): either outcome is fine, a crash is not.
    report = check_template(path, tmp_path / "code")
    assert report.findings == ()
    assert all("nested too deeply to analyse" in n.message for n in report.notes)


def test_cdk_asset_folder_next_to_the_template(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Metadata: {"aws:asset:path": asset.0123abcd}
            Properties: {Code: {S3Bucket: b, S3Key: k}, Handler: index.handler, Runtime: nodejs20.x}
        """,
    )
    (tmp_path / "asset.0123abcd").mkdir()
    (tmp_path / "asset.0123abcd" / "index.js").write_text("exports.handler = async () => ({});\n")
    source, why = handler_code(load_template(path), "Fn", None)
    assert source is not None, why
    assert source.file == str(tmp_path / "asset.0123abcd" / "index.js")


def test_recursion_error_in_the_analysis_becomes_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cfnops.guard._engine as engine

    def explode(source: object) -> None:
        raise RecursionError

    monkeypatch.setattr(engine, "analyze_source", explode)
    path = write(
        tmp_path,
        """
        Resources:
          Fn:
            Type: AWS::Lambda::Function
            Properties: {Code: {ZipFile: "x = 1"}, Handler: index.handler, Runtime: python3.12}
          Res:
            Type: Custom::X
            Properties: {ServiceToken: !GetAtt Fn.Arn}
        """,
    )
    (note,) = check_template(path).notes
    assert note.message == f"function Fn: the handler in {path} is nested too deeply to analyse"
