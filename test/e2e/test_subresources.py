"""The bucket sub-resources cubby keeps no configuration for (issue 15, "Smaller parts of the
API"): boto3's get_* calls answer what S3 answers for a bucket without such a configuration,
the put_* calls NotImplemented, the delete_* calls what S3 answers with nothing set; each asks
its own IAM action, and a missing bucket is NoSuchBucket."""

import json

import botocore.exceptions
import pytest

from cubby_e2e import new_bucket_name, raw_request


def error_of(excinfo):
    err = excinfo.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]


def status_of(response):
    return response["ResponseMetadata"]["HTTPStatusCode"]


def test_gets_answer_as_for_a_bucket_without_configuration(s3, bucket):
    logging = s3.get_bucket_logging(Bucket=bucket)
    assert status_of(logging) == 200 and "LoggingEnabled" not in logging
    notification = s3.get_bucket_notification_configuration(Bucket=bucket)
    assert status_of(notification) == 200
    assert not any(k in notification for k in (
        "TopicConfigurations", "QueueConfigurations", "LambdaFunctionConfigurations",
        "EventBridgeConfiguration"))
    assert s3.get_bucket_request_payment(Bucket=bucket)["Payer"] == "BucketOwner"
    accelerate = s3.get_bucket_accelerate_configuration(Bucket=bucket)
    assert status_of(accelerate) == 200 and "Status" not in accelerate
    for call, list_key in [
            (s3.list_bucket_analytics_configurations, "AnalyticsConfigurationList"),
            (s3.list_bucket_metrics_configurations, "MetricsConfigurationList"),
            (s3.list_bucket_inventory_configurations, "InventoryConfigurationList"),
            (s3.list_bucket_intelligent_tiering_configurations,
             "IntelligentTieringConfigurationList")]:
        listed = call(Bucket=bucket)
        assert status_of(listed) == 200
        assert listed["IsTruncated"] is False and list_key not in listed, listed


@pytest.mark.parametrize("call,code", [
    ("get_bucket_website", "NoSuchWebsiteConfiguration"),
    ("get_bucket_replication", "ReplicationConfigurationNotFoundError"),
    ("get_bucket_analytics_configuration", "NoSuchConfiguration"),
    ("get_bucket_metrics_configuration", "NoSuchConfiguration"),
    ("get_bucket_inventory_configuration", "NoSuchConfiguration"),
    ("get_bucket_intelligent_tiering_configuration", "NoSuchConfiguration"),
    ("delete_bucket_analytics_configuration", "NoSuchConfiguration"),
    ("delete_bucket_metrics_configuration", "NoSuchConfiguration"),
    ("delete_bucket_inventory_configuration", "NoSuchConfiguration"),
    ("delete_bucket_intelligent_tiering_configuration", "NoSuchConfiguration"),
])
def test_missing_configuration_errors(s3, bucket, call, code):
    kwargs = {"Bucket": bucket}
    if "configuration" in call and not call.startswith("list"):
        kwargs["Id"] = "report"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        getattr(s3, call)(**kwargs)
    assert error_of(e) == (code, 404)


@pytest.mark.parametrize("call", [
    "delete_bucket_website", "delete_bucket_replication"])
def test_deletes_with_nothing_set(s3, bucket, call):
    assert status_of(getattr(s3, call)(Bucket=bucket)) == 204


@pytest.mark.parametrize("call,kwargs,operation", [
    ("put_bucket_website", {"WebsiteConfiguration": {"IndexDocument": {"Suffix": "i.html"}}},
     "PutBucketWebsite"),
    ("put_bucket_logging", {"BucketLoggingStatus": {}}, "PutBucketLogging"),
    ("put_bucket_notification_configuration", {"NotificationConfiguration": {}},
     "PutBucketNotificationConfiguration"),
    ("put_bucket_accelerate_configuration",
     {"AccelerateConfiguration": {"Status": "Enabled"}}, "PutBucketAccelerateConfiguration"),
    ("put_bucket_metrics_configuration",
     {"Id": "m", "MetricsConfiguration": {"Id": "m"}}, "PutBucketMetricsConfiguration"),
])
def test_puts_are_not_implemented(s3, bucket, call, kwargs, operation):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        getattr(s3, call)(Bucket=bucket, **kwargs)
    assert error_of(e) == ("NotImplemented", 501)
    assert e.value.response["Error"]["Message"] == f"{operation} is not implemented by cubby."


def test_request_payment(s3, bucket):
    # The bucket owner pays, as every bucket has it: setting so is a success that changes
    # nothing (s3cmd payer does it); Requester Pays is not implemented.
    r = s3.put_bucket_request_payment(Bucket=bucket,
                                      RequestPaymentConfiguration={"Payer": "BucketOwner"})
    assert status_of(r) == 200
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_bucket_request_payment(Bucket=bucket,
                                      RequestPaymentConfiguration={"Payer": "Requester"})
    assert error_of(e) == ("NotImplemented", 501)
    assert e.value.response["Error"]["Message"] == "Requester Pays is not implemented by cubby."
    assert s3.get_bucket_request_payment(Bucket=bucket)["Payer"] == "BucketOwner"


@pytest.mark.parametrize("call", [
    "get_bucket_website", "get_bucket_logging", "get_bucket_notification_configuration",
    "get_bucket_request_payment", "get_bucket_accelerate_configuration",
    "get_bucket_replication", "list_bucket_metrics_configurations",
    "delete_bucket_website", "put_bucket_request_payment"])
def test_missing_bucket(s3, call):
    kwargs = {"Bucket": new_bucket_name()}
    if call == "put_bucket_request_payment":
        kwargs["RequestPaymentConfiguration"] = {"Payer": "BucketOwner"}
    with pytest.raises(botocore.exceptions.ClientError) as e:
        getattr(s3, call)(**kwargs)
    assert error_of(e) == ("NoSuchBucket", 404)


def test_each_call_asks_its_own_action(s3, anon, bucket):
    # A policy that lets anyone read the logging status, and nothing else.
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetBucketLogging",
                       "Resource": f"arn:aws:s3:::{bucket}"}]}))
    assert status_of(anon.get_bucket_logging(Bucket=bucket)) == 200
    for call in (anon.get_bucket_website, anon.get_bucket_request_payment,
                 anon.get_bucket_notification_configuration):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            call(Bucket=bucket)
        assert error_of(e) == ("AccessDenied", 403)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        anon.put_bucket_logging(Bucket=bucket, BucketLoggingStatus={})
    assert error_of(e) == ("AccessDenied", 403)


def test_documents_on_the_wire(server, bucket):
    r = raw_request(server, "GET", f"/{bucket}", query="logging")
    assert r.status == 200
    assert (b'<BucketLoggingStatus xmlns="http://doc.s3.amazonaws.com/2006-03-01">'
            b"</BucketLoggingStatus>") in r.body
    r = raw_request(server, "GET", f"/{bucket}", query="requestPayment")
    assert b"<Payer>BucketOwner</Payer>" in r.body
